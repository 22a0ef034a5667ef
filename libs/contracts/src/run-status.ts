/** A finished run's status (GET /v1/runs/{runId}): `queued` and `running` are the unfinished ones. */
export type FinishedRunStatus = 'completed' | 'waiting' | 'failed' | 'cancelled';

/**
 * The status a run finishes with, from its loop's stop reason: `agent_waiting` waits for the user,
 * a run stopped by a cancel or a rollback is cancelled, one that could not answer failed, and
 * every other stop (an answer, a turn limit, an interrupt, a steer) completed it.
 */
export function finishedRunStatus(stopReason: string): FinishedRunStatus {
  switch (stopReason) {
    case 'agent_waiting':
      return 'waiting';
    case 'cancelled':
    case 'rolled_back':
      return 'cancelled';
    case 'model_error':
    case 'context_overflow':
    case 'deadline':
    case 'plan_failed':
    case 'invalid_output':
      return 'failed';
    default:
      return 'completed';
  }
}
