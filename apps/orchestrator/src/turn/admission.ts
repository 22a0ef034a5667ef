import type { Logger } from '@platform/service-kit';
import { expiryNoticeResult } from '../agents/expiry-notice.js';
import type { AgentProfile, ProfileRegistry } from '../profiles.js';
import type { TurnAttempt } from './attempt.js';
import { reportFailure, SYSTEM_FAILURES } from './failure-report.js';
import { syntheticResult, TurnResult, type TurnStep } from './turn-steps.js';

/** The admission step's output: an attempt that may run, with its agent profile. */
export interface AdmittedTurn {
  attempt: TurnAttempt;
  profile: AgentProfile;
}

export interface AdmissionStepOptions {
  profiles: Pick<ProfileRegistry, 'resolve'>;
  /** A run that failed this many attempts is given up (MAX_RUN_ATTEMPTS). */
  maxAttempts: number;
  logger: Logger;
}

/**
 * The admission step: whether the attempt runs a turn at all. An agent's expiry is a notice, not a
 * turn; a run that failed too many attempts, or whose profile is gone, ends with a failure.
 */
export class AdmissionStep implements TurnStep<TurnAttempt, AdmittedTurn | TurnResult> {
  readonly name = 'admission';

  constructor(private readonly options: AdmissionStepOptions) {}

  async run(attempt: TurnAttempt): Promise<AdmittedTurn | TurnResult> {
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
    const profile = this.options.profiles.resolve(run.profile);
    if (!profile) {
      const message = `the agent profile '${run.profile}' no longer exists`;
      reportFailure(this.options.logger, run, SYSTEM_FAILURES.profileMissing);
      return new TurnResult(
        attempt,
        syntheticResult(run.runId, 'model_error', message, {
          kind: 'profile_missing',
          message,
          failure: SYSTEM_FAILURES.profileMissing,
        }),
      );
    }
    return { attempt, profile };
  }
}
