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
    const usable = TOOL_CALL_ID_PATTERN.test(call.id) && !taken.has(call.id);
    const id = usable ? call.id : derivedCallId(runId, iteration, index);
    taken.add(id);
    if (id === call.id) return call;
    changed = true;
    return { ...call, id };
  });
  return changed ? { ...message, toolCalls } : message;
}
