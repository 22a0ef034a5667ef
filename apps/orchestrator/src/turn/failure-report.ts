import type { LoopEvent, StepFailure } from '@platform/agent-loop';
import type { Logger } from '@platform/service-kit';
import { recordFailure } from '@platform/telemetry';

/** Which run a failure belongs to (log fields only: never metric labels). */
export interface FailureScope {
  runId: string;
  profile: string;
}

/**
 * Reports one classified failure of a run (failures.ts in @platform/agent-loop): the log line
 * `run step failed` with `failureClass`, `kind`, `severity` and `recovery`, and the counter
 * `platform.failures` labelled by those four only (no tenant or run ids: they are unbounded).
 */
export function reportFailure(
  logger: Logger,
  scope: FailureScope,
  failure: StepFailure,
  details: Record<string, unknown> = {},
): void {
  const level = failure.severity === 'high' || failure.severity === 'critical' ? 'error' : 'warn';
  logger[level](
    {
      runId: scope.runId,
      profile: scope.profile,
      failureClass: failure.class,
      kind: failure.kind,
      severity: failure.severity,
      recovery: failure.recovery,
      ...details,
    },
    'run step failed',
  );
  recordFailure({
    failureClass: failure.class,
    kind: failure.kind,
    severity: failure.severity,
    recovery: failure.recovery,
  });
}

/** Reports the failure a loop event carries (`step_failed`); other events are ignored. */
export function reportLoopFailure(logger: Logger, scope: FailureScope, event: LoopEvent): void {
  if (event.type !== 'step_failed') return;
  const { failure, step, iteration, model, callId, name, message } = event;
  reportFailure(logger, scope, failure, {
    step,
    iteration,
    ...(model ? { model } : {}),
    ...(callId ? { callId, tool: name } : {}),
    ...(message ? { err: message } : {}),
  });
}

/** Infrastructure failures of an attempt (the `system` class): the run is taken up again from its journal. */
export const SYSTEM_FAILURES = {
  /** A dependency (database, NATS, memory, the agent pool) was unreachable: the run is deferred and retried. */
  outage: { class: 'system', kind: 'dependency_unavailable', severity: 'high', recovery: 'retry' },
  /** A journal write failed: the attempt stops and the run resumes from its journal. */
  journalWrite: { class: 'system', kind: 'journal_write_failed', severity: 'high', recovery: 'retry' },
  /** Every attempt of the run stopped or crashed before finishing (MAX_RUN_ATTEMPTS): it fails. */
  tooManyAttempts: { class: 'system', kind: 'too_many_attempts', severity: 'high', recovery: 'none' },
  /** The run's profile is gone from the profiles file: it fails. */
  profileMissing: { class: 'system', kind: 'profile_missing', severity: 'high', recovery: 'none' },
} as const satisfies Record<string, StepFailure>;
