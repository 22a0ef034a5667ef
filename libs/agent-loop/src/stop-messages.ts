import type { LoopResult, StopReason } from './loop-result.js';
import type { PendingAgent } from './tool-port.js';

/** The user-facing answer when the loop ends without a model answer. */
export const stopMessages = {
  cancelled: 'The request was cancelled before it finished.',
  deadline: 'I could not finish this request in the time available. Please try again, perhaps with a narrower request.',
  contextOverflow:
    'This conversation has grown too long for the model, even after shortening it. Please start a new conversation.',
  modelError: (message: string): string => `The model could not be reached (${message}). Please try again later.`,
  noFinalAnswer:
    'I reached the step limit for this request before finishing. Here is where things stand: the tool results above are what I gathered.',
  invalidOutput: 'The answer did not match the format this request asked for, even after a retry.',
  agentWaiting: (pending: readonly PendingAgent[]): string => pending.map((p) => p.prompt).join('\n\n'),
  interrupted:
    'This request was interrupted by a newer message before it finished; the steps above are what it completed.',
  rolledBack: 'This request was withdrawn by a newer message; nothing it did was kept in the conversation.',
};

/** The response of a loop that stopped for `stopReason` without an answer of its own. */
export function fallbackResponse(
  stopReason: StopReason,
  pending: readonly PendingAgent[],
  error: LoopResult['error'] | undefined,
): string {
  const fallback: Record<StopReason, () => string> = {
    final_answer: () => '',
    stop_condition: () => '',
    max_turns: () => stopMessages.noFinalAnswer,
    repeat_guard: () => stopMessages.noFinalAnswer,
    agent_waiting: () => stopMessages.agentWaiting(pending),
    cancelled: () => stopMessages.cancelled,
    deadline: () => stopMessages.deadline,
    context_overflow: () => stopMessages.contextOverflow,
    model_error: () => stopMessages.modelError(error?.message ?? 'unknown error'),
    invalid_output: () => stopMessages.invalidOutput,
    interrupted: () => stopMessages.interrupted,
    rolled_back: () => stopMessages.rolledBack,
    // Never the loop's own stops (a plan-and-execute run's, a steering message's); listed for completeness.
    plan_failed: () => error?.message ?? '',
    steered: () => '',
  };
  return fallback[stopReason]();
}
