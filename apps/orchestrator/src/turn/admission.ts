import type { Logger } from '@platform/service-kit';
import { expiryNoticeResult } from '../agent-tools/expiry-notice.js';
import type { TurnAttempt } from './attempt.js';
import { reportFailure, SYSTEM_FAILURES } from './failure-report.js';
import { syntheticResult, TurnResult, type TurnStep } from './turn-steps.js';

/** The admission step's output: an attempt that may run (the agent-resolution step gives it its profile). */
export interface AdmittedAttempt {
  attempt: TurnAttempt;
}

export interface AdmissionStepOptions {
  /** A run that failed this many attempts is given up (MAX_RUN_ATTEMPTS). */
  maxAttempts: number;
  logger: Logger;
}

/**
 * The admission step: whether the attempt runs a turn at all. An agent's expiry is a notice, not a
 * turn; a run that failed too many attempts ends with a failure.
 */
export class AdmissionStep implements TurnStep<TurnAttempt, AdmittedAttempt | TurnResult> {
  readonly name = 'admission';

  constructor(private readonly options: AdmissionStepOptions) {}

  async run(attempt: TurnAttempt): Promise<AdmittedAttempt | TurnResult> {
    const { run } = attempt;
    if (run.kind === 'agent_expired') return new TurnResult(attempt, expiryNoticeResult(run.runId, run.content));
    if (run.attempts > this.options.maxAttempts) {
      const message = `the run failed ${run.attempts - 1} times (each holder stopped or crashed before finishing); giving up`;
      reportFailure(this.options.logger, run, SYSTEM_FAILURES.tooManyAttempts, { attempt: run.attempts });
      return new TurnResult(
        attempt,
        syntheticResult(run.runId, 'model_error', message, {
          kind: 'too_many_attempts',
          message,
          failure: SYSTEM_FAILURES.tooManyAttempts,
        }),
      );
    }
    return { attempt };
  }
}
