import type { ToolCallResponse } from '@platform/contracts';
import type { ToolClient } from '@platform/tool-sdk';
import type { ExecutionOutcome, FireContext, FireExecutor } from './fire-executor.js';

const RETRYABLE_CODES = new Set(['RUNNER_UNAVAILABLE', 'TRANSPORT_FAILED', 'DEADLINE_EXCEEDED']);
/** How long a saturated executor is left alone before its fire is offered again. */
const BUSY_RETRY_AFTER_MS = 1_000;

/** The arguments a custom executor gets for a fire (docs/triggers.md, "Writing a custom executor"). */
export function executorArguments(fire: FireContext): Record<string, unknown> {
  return {
    taskId: fire.taskId,
    fireId: fire.fireId,
    userId: fire.userId,
    kind: fire.kind,
    scheduledAt: fire.scheduledAt.toISOString(),
    attempt: fire.attempt,
    missedCount: fire.missedCount,
    config: fire.spec.action.config ?? {},
    payload: fire.payload ?? null,
  };
}

/** How a custom executor's answer ends the fire's attempt. */
export function executionOutcomeOf(response: ToolCallResponse): ExecutionOutcome {
  if (response.status === 'success') return { status: 'succeeded', result: response.output ?? null };
  // A runner at its limit ran nothing: back-pressure, whichever way the client reported it.
  if (response.status === 'busy' || response.error.code === 'RUNNER_BUSY') {
    return { status: 'backpressure', code: 'EXECUTOR_BUSY', message: response.error.message, retryAfterMs: BUSY_RETRY_AFTER_MS };
  }
  const code = response.error.code;
  return { status: 'failed', code, message: response.error.message, retryable: response.status === 'timeout' || RETRYABLE_CODES.has(code) };
}

/**
 * A custom executor: an endpoint a runner serves over the tool protocol (NATS request-reply, queue
 * group), named by the task's `executor`. No model is involved. The call id is the fire id, so a
 * runner with idempotency on (libs/tool-sdk) runs a fire's side effects once even when a fire is
 * retried after its replica died mid-call. This one sends each fire alone; `BatchingCustomExecutor`
 * groups fires that start together.
 */
export class CustomExecutor implements FireExecutor {
  constructor(
    private readonly tools: ToolClient,
    private readonly timeoutMs: number,
  ) {}

  async execute(fire: FireContext, signal: AbortSignal): Promise<ExecutionOutcome> {
    const response = await this.tools.call({
      toolName: fire.spec.executor,
      callId: fire.fireId,
      tenantId: fire.tenantId,
      conversationId: fire.taskId,
      arguments: executorArguments(fire),
      deadlineAt: Date.now() + this.timeoutMs,
      signal,
      sideEffect: 'external',
    });
    return executionOutcomeOf(response);
  }
}
