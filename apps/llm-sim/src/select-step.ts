import type { ChatMessage } from './chat-request.js';
import { contentText, latestTurnStartIndex } from './conversation.js';
import type { Scenario, ScenarioStep } from './scenario-schema.js';

const MARKER = /\[scenario:([A-Za-z0-9._-]+)\]/g;

/**
 * The scenario named by the latest user message carrying a `[scenario:<name>]` marker
 * (within one message the last marker wins), or undefined when no user message has one.
 */
export function findScenarioMarker(messages: readonly ChatMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== 'user') continue;
    const names = [...contentText(message.content).matchAll(MARKER)].map((m) => m[1]);
    const name = names.at(-1);
    if (name) return name;
  }
  return undefined;
}

/** Removes scenario markers (they steer the simulator, they are not part of what the user said). */
export function stripScenarioMarkers(text: string): string {
  return text.replace(MARKER, '').replace(/\s{2,}/g, ' ').trim();
}

/** Outcome of scenario selection. */
export type ScenarioSelection =
  | { ok: true; scenario: Scenario }
  | { ok: false; requested: string; available: string[] };

/** Picks the scenario by marker, falling back to `defaultName`. */
export function selectScenario(
  messages: readonly ChatMessage[],
  scenarios: ReadonlyMap<string, Scenario>,
  defaultName: string,
): ScenarioSelection {
  const requested = findScenarioMarker(messages) ?? defaultName;
  const scenario = scenarios.get(requested);
  if (scenario) return { ok: true, scenario };
  return { ok: false, requested, available: [...scenarios.keys()].sort() };
}

/**
 * How far into the current turn the conversation is: the number of assistant messages after the
 * latest turn-starting user message (all assistant messages when no user message starts a turn).
 */
export function stepIndexOf(messages: readonly ChatMessage[]): number {
  const start = latestTurnStartIndex(messages);
  return messages.slice(start + 1).filter((m) => m.role === 'assistant').length;
}

/** The step to serve for an index, after applying the scenario's `whenExhausted` policy. */
export type StepResolution = { ok: true; step: ScenarioStep; replayed: boolean } | { ok: false };

/** Maps a step index onto the scenario's steps. */
export function resolveStep(scenario: Scenario, stepIndex: number): StepResolution {
  const step = scenario.steps[stepIndex];
  if (step) return { ok: true, step, replayed: false };
  const last = scenario.steps.at(-1);
  if (scenario.whenExhausted === 'error' || !last) return { ok: false };
  return { ok: true, step: last, replayed: true };
}
