import { createHash } from 'node:crypto';
import { TOOL_CALL_ID_PATTERN, type AssistantMessage, type ChatMessage } from '@platform/contracts';

/** Every tool call id the messages use (calls and results). */
export function callIdsIn(messages: readonly ChatMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) ids.add(call.id);
    else if (message.role === 'tool') ids.add(message.toolCallId);
  }
  return ids;
}

/** An id for a call the model gave no usable id, the same whenever this step of this run is replayed. */
function derivedCallId(runId: string, iteration: number, index: number): string {
  return `call_${createHash('sha256').update(`${runId}\u0000${iteration}\u0000${index}`).digest('hex').slice(0, 24)}`;
}

/** The id a call at `index` of a message keeps: its own when well formed and not `taken`, else one derived. */
function usableCallId(id: string, taken: ReadonlySet<string>, runId: string, iteration: number, index: number): string {
  return TOOL_CALL_ID_PATTERN.test(id) && !taken.has(id) ? id : derivedCallId(runId, iteration, index);
}

/**
 * The ids {@link withUsableCallIds} will give a message's calls, told while the message streams:
 * a call's id is settled by its first delta (the provider's id so far, and its position among the
 * calls as they appeared). Providers send a call's id with its first delta and number calls in the
 * order they write them, so these are the ids of the finished message.
 */
export function streamedCallIds(
  taken: ReadonlySet<string>,
  runId: string,
  iteration: number,
): (index: number, id: string) => string {
  const settled = new Map<number, string>();
  const inMessage = new Set<string>();
  return (index, id) => {
    let usable = settled.get(index);
    if (usable !== undefined) return usable;
    usable = inMessage.has(id)
      ? derivedCallId(runId, iteration, settled.size)
      : usableCallId(id, taken, runId, iteration, settled.size);
    settled.set(index, usable);
    inMessage.add(usable);
    return usable;
  };
}

/**
 * The model's message with a tool call id the platform can key on for every call. Runners dedupe
 * side effects and the agent pool keys entries by call id, so an id must be well formed and new:
 * one that is missing, malformed, repeated within the message, or already used in `taken` (some
 * OpenAI-compatible servers number calls from 0 in every response) is replaced by one derived
 * from the run, the step and the call's position, the same on a replay of the run. `taken`
 * gains the message's ids.
 */
export function withUsableCallIds(
  message: AssistantMessage,
  taken: Set<string>,
  runId: string,
  iteration: number,
): AssistantMessage {
  const calls = message.toolCalls;
  if (!calls?.length) return message;
  let changed = false;
  const toolCalls = calls.map((call, index) => {
    const id = usableCallId(call.id, taken, runId, iteration, index);
    taken.add(id);
    if (id === call.id) return call;
    changed = true;
    return { ...call, id };
  });
  return changed ? { ...message, toolCalls } : message;
}
