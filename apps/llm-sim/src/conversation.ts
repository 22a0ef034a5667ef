import { RESUMED_CALL_ID_SUFFIX } from '@platform/contracts';
import type { ChatMessage, MessageContent } from './chat-request.js';

/**
 * A text-protocol (ReAct) adapter feeds tool observations back as user messages that start with
 * this prefix; they continue the current turn rather than starting a new one.
 */
export const OBSERVATION_PREFIX = 'Observation:';

/** Flattens wire content (string or content parts) to plain text; non-text parts contribute nothing. */
export function contentText(content: MessageContent | null | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('');
}

/** True for a user message that begins a new turn (i.e. is not a fed-back observation). */
export function isTurnStartingUserMessage(message: ChatMessage): boolean {
  return message.role === 'user' && !contentText(message.content).trimStart().startsWith(OBSERVATION_PREFIX);
}

/** Index of the latest turn-starting user message, or -1 when there is none. */
export function latestTurnStartIndex(messages: readonly ChatMessage[]): number {
  return messages.findLastIndex(isTurnStartingUserMessage);
}

/** Index of the latest user message of any kind (observations included), or -1. */
export function latestUserIndex(messages: readonly ChatMessage[]): number {
  return messages.findLastIndex((m) => m.role === 'user');
}

/**
 * True for an assistant message with tool calls whose ids ALL end in `RESUMED_CALL_ID_SUFFIX`: an
 * exchange the platform added itself (an agent-tool that finished after waiting for the user), which
 * is context, not a step the model took.
 */
export function isPlatformResumedExchange(message: ChatMessage): boolean {
  if (message.role !== 'assistant') return false;
  const calls = message.tool_calls ?? [];
  return calls.length > 0 && calls.every((call) => call.id.endsWith(RESUMED_CALL_ID_SUFFIX));
}
