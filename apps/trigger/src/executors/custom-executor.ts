import type { ToolClient } from '@platform/tool-sdk';
import type { ExecutionOutcome, FireContext, FireExecutor } from './fire-executor.js';

const RETRYABLE_CODES = new Set(['RUNNER_UNAVAILABLE', 'TRANSPORT_FAILED', 'DEADLINE_EXCEEDED']);

/**
 * A custom executor: an endpoint a runner serves over the tool protocol (NATS request-reply, queue
 * group), named by the task's `executor`. No model is involved. The call id is the fire id, so a
 * runner with idempotency on (libs/tool-sdk) runs a fire's side effects once even when a fire is
 * retried after its replica died mid-call.
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
      arguments: {
        taskId: fire.taskId,
        fireId: fire.fireId,
        userId: fire.userId,
        kind: fire.kind,
        scheduledAt: fire.scheduledAt.toISOString(),
        attempt: fire.attempt,
        missedCount: fire.missedCount,
        config: fire.spec.action.config ?? {},
        payload: fire.payload ?? null,
      },
      deadlineAt: Date.now() + this.timeoutMs,
      signal,
      sideEffect: 'external',
    });
    if (response.status === 'success') return { status: 'succeeded', result: response.output ?? null };
    if (response.status === 'busy') return { status: 'backpressure', code: 'EXECUTOR_BUSY', message: response.error.message, retryAfterMs: 1_000 };
    const code = response.error.code;
    return { status: 'failed', code, message: response.error.message, retryable: response.status === 'timeout' || RETRYABLE_CODES.has(code) };
  }
}
