import type { ChatMessage } from './chat-request.js';
import { contentText } from './conversation.js';

/** `[scenario:<name>]` in a user message: which scenario the simulator plays. */
export const SCENARIO_MARKER = /\[scenario:([A-Za-z0-9._-]+)\]/g;

/** The latest user message carrying a `[scenario:<name>]` marker, as its index and the name it selects. */
export function findScenarioMarkerMessage(
  messages: readonly ChatMessage[],
): { index: number; name: string } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== 'user') continue;
    const names = [...contentText(message.content).matchAll(SCENARIO_MARKER)].map((m) => m[1]);
    const name = names.at(-1);
    if (name) return { index: i, name };
  }
  return undefined;
}

/**
 * The scenario named by the latest user message carrying a `[scenario:<name>]` marker
 * (within one message the last marker wins), or undefined when no user message has one.
 */
export function findScenarioMarker(messages: readonly ChatMessage[]): string | undefined {
  return findScenarioMarkerMessage(messages)?.name;
}

/** Removes scenario markers (they steer the simulator, they are not part of what the user said). */
export function stripScenarioMarkers(text: string): string {
  return text
    .replace(SCENARIO_MARKER, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}
