import type { orchestratorV1 } from '@platform/proto';
import { isPlatformError } from '@platform/service-kit';
import type { OrchestratorTools, TaskToolCall } from '../orchestrator-tools.js';
import type { ExecutionOutcome, FireContext, FireExecutor } from './fire-executor.js';
import { ErrorCodes } from '../error-codes.js';

const RETRYABLE_CODES = new Set([
  'RUNNER_UNAVAILABLE',
  'TRANSPORT_FAILED',
  'DEADLINE_EXCEEDED',
  'TIMEOUT',
  'TOOL_CIRCUIT_OPEN',
]);
/** How long a saturated executor is left alone before its fire is offered again. */
const BUSY_RETRY_AFTER_MS = 1_000;
/** gRPC kinds of an orchestrator that could not take the call now: back-pressure, not a failure. */
const BACKPRESSURE_KINDS = new Set(['resource_exhausted', 'unavailable']);
const RETRYABLE_KINDS = new Set(['deadline_exceeded', 'internal', 'cancelled']);

/** The arguments a custom executor gets for a fire (docs/triggers.md, "Writing a custom executor"). */
function executorArguments(fire: FireContext): Record<string, unknown> {
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

/** A fire's call of its custom executor, as the orchestrator's tool gate gets it (the fire id is the call id). */
export function executorCall(fire: FireContext, timeoutMs: number): TaskToolCall {
  return {
    caller: 'executor',
    tenantId: fire.tenantId,
    profile: fire.spec.action.profile ?? '',
    toolName: fire.spec.executor,
    arguments: executorArguments(fire),
    callId: fire.fireId,
    conversationId: fire.taskId,
    timeoutMs,
  };
}

/** How a custom executor's answer, through the tool gate, ends the fire's attempt. */
export function executionOutcomeOf(
  result: Pick<orchestratorV1.ToolCallResult, 'status' | 'outputJson' | 'errorCode' | 'errorMessage'>,
): ExecutionOutcome {
  if (result.status === 'success')
    return { status: 'succeeded', result: result.outputJson ? (JSON.parse(result.outputJson) as unknown) : null };
  // A runner at its limit ran nothing: back-pressure.
  if (result.errorCode === 'RUNNER_BUSY')
    return {
      status: 'backpressure',
      code: ErrorCodes.EXECUTOR_BUSY,
      message: result.errorMessage,
      retryAfterMs: BUSY_RETRY_AFTER_MS,
    };
  // The gate's refusals (`denied`: not an executor, not allowed, needs approval) never change by retrying.
  const retryable =
    result.status !== 'denied' && (result.status === 'timeout' || RETRYABLE_CODES.has(result.errorCode));
  return { status: 'failed', code: result.errorCode, message: result.errorMessage, retryable };
}

/** How a CallTool that did not answer with a result ends the fire's attempt. */
export function executionOutcomeOfError(err: unknown): ExecutionOutcome {
  if (!isPlatformError(err)) throw err;
  // No runner serves the executor right now (or has for a while): retried with backoff, like any failed attempt.
  if (err.code === 'RUNNER_UNAVAILABLE' || err.code === 'TOOL_NOT_FOUND')
    return { status: 'failed', code: err.code, message: err.message, retryable: true };
  if (BACKPRESSURE_KINDS.has(err.kind))
    return {
      status: 'backpressure',
      code: err.code,
      message: err.message,
      retryAfterMs: Math.max(1, err.retryAfterSeconds ?? 1) * 1000,
    };
  return { status: 'failed', code: err.code, message: err.message, retryable: RETRYABLE_KINDS.has(err.kind) };
}

/**
 * A custom executor: an endpoint a runner serves over the tool protocol and declares an executor
 * (`platform.executor`), named by the task's `executor`. No model is involved. The fire goes to
 * the orchestrator's tool gate (CallTool, caller `executor`), never straight to the runner: the
 * task's profile allowlist, the executor declaration, approval, breakers and grants apply there.
 * The call id is the fire id, so a runner with idempotency on (libs/tool-sdk) runs a fire's side
 * effects once even when a fire is retried after its replica died mid-call. This one sends each
 * fire alone; `BatchingCustomExecutor` groups fires that start together.
 */
export class CustomExecutor implements FireExecutor {
  constructor(
    private readonly tools: OrchestratorTools,
    private readonly timeoutMs: number,
  ) {}

  async execute(fire: FireContext, signal: AbortSignal): Promise<ExecutionOutcome> {
    try {
      return executionOutcomeOf(await this.tools.call(executorCall(fire, this.timeoutMs), signal));
    } catch (err) {
      return executionOutcomeOfError(err);
    }
  }
}
