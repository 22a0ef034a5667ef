import type { FireKind } from '../task-row.js';
import type { TaskSpec } from '../task-spec.js';

/** What an executor gets for one fire. `fireId` is stable across retries: executors dedupe on it. */
export interface FireContext {
  fireId: string;
  taskId: string;
  tenantId: string;
  userId: string;
  kind: FireKind;
  scheduledAt: Date;
  /** 1 for the first attempt; a later attempt may follow one that was cut off mid-way. */
  attempt: number;
  /** Scheduled times this fire stands for beyond its own (misfire policy `fire_once`). */
  missedCount: number;
  spec: TaskSpec;
  /** An event's data or a condition's result; null for schedules. */
  payload: unknown;
}

/** How an execution ended. */
export type ExecutionOutcome =
  | { status: 'succeeded'; runId?: string; result: unknown }
  /** The run stopped for the user's approval (orchestrator executor). */
  | { status: 'waiting_approval'; runId: string; result: unknown }
  /** The executor refused or broke; `retryable` failures are tried again with backoff. */
  | { status: 'failed'; code: string; message: string; retryable: boolean; runId?: string }
  /** The executor is saturated and said when to come back: retried then, never counted as a failure. */
  | { status: 'backpressure'; code: string; message: string; retryAfterMs: number };

/** The port every executor implements. */
export interface FireExecutor {
  execute(fire: FireContext, signal: AbortSignal): Promise<ExecutionOutcome>;
}
