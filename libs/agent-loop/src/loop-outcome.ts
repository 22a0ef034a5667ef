import type { ChatMessage, ToolCall, ToolMessage } from '@platform/contracts';
import type { AgentLoopResult, IterationRecord, LoopResult, StopReason, ToolCallRecord } from './loop-result.js';
import type { TokenUsage } from './model-port.js';
import { fallbackResponse } from './stop-messages.js';
import { closeUnanswered } from './synthetic-results.js';
import type { PendingAgent } from './tool-port.js';

/**
 * Closure: the synthetic results of the calls in `produced` that never got one, for a run that
 * stops now (`blocked` past its deadline, else `cancelled`).
 */
export function danglingCallResults(produced: readonly ChatMessage[], deadlineReached: boolean): ToolMessage[] {
  const answered = new Set(produced.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  const calls: ToolCall[] = produced.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
  return deadlineReached
    ? closeUnanswered(calls, answered, 'blocked', 'DEADLINE', 'the time for this request ran out before this call ran.')
    : closeUnanswered(calls, answered, 'cancelled', 'CANCELLED', 'the run stopped before this call ran.');
}

/** How a run ended and what it did, to fold into its result. */
export interface LoopOutcome {
  runId: string;
  stopReason: StopReason;
  /** The answer; absent: the stop reason's own message (stop-messages.ts). */
  response: string | undefined;
  error: LoopResult['error'] | undefined;
  pending: PendingAgent[];
  output: unknown;
  turns: number;
  usage: TokenUsage;
  durationMs: number;
  toolCalls: ToolCallRecord[];
  messages: ChatMessage[];
  transcript: IterationRecord[];
}

/** The loop's result, from how it ended. */
export function loopResult(outcome: LoopOutcome): AgentLoopResult {
  const { stopReason, pending, error, output } = outcome;
  return {
    runId: outcome.runId,
    response: outcome.response ?? fallbackResponse(stopReason, pending, error),
    stopReason,
    turns: outcome.turns,
    usage: outcome.usage,
    durationMs: outcome.durationMs,
    pendingAgents: pending,
    toolCalls: outcome.toolCalls,
    messages: outcome.messages,
    transcript: outcome.transcript,
    ...(output !== undefined ? { output } : {}),
    ...(error
      ? {
          error: {
            kind: error.kind,
            message: error.message,
            ...(error.failure ? { failure: error.failure } : {}),
            ...(error.issues ? { issues: error.issues } : {}),
          },
        }
      : {}),
  };
}
