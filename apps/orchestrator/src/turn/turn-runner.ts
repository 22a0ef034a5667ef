import type { ClaimedRun, RunRecord } from '../journal/run-records.js';
import type { HeldLease } from '../ordering/conversation-lease.js';
import type { RunExecutor } from '../ordering/run-executor.js';
import type { AttemptStep, TurnAttempt } from './attempt.js';
import type { RecordedTurn } from './post-process.js';
import { TurnResult, type TurnSteps } from './turn-steps.js';

/** The turn's steps, in order (server.ts lists them; the README walks the path). */
export interface TurnRunnerSteps {
  /** First and around the rest: the attempt (leases, events, cancel, hand-over, outage). */
  attempt: AttemptStep;
  /** Up to the turn's result: admission … the loop; a step may conclude early with a result. */
  prepare: TurnSteps<TurnAttempt, TurnResult>;
  /** On the result: post-process, publish. */
  finish: TurnSteps<TurnResult, RecordedTurn>;
}

/**
 * Runs one claimed run as a turn: folds the steps over it, each step's output the next one's
 * input. An attempt abandoned by the time its result is ready writes and publishes nothing more
 * (the run resumes from its journal in its next attempt).
 */
export class TurnRunner implements RunExecutor {
  constructor(private readonly steps: TurnRunnerSteps) {}

  execute(run: ClaimedRun, lease: HeldLease): Promise<RunRecord | undefined> {
    return this.steps.attempt.run({ run, lease }, (attempt) => this.fold(attempt));
  }

  private async fold(attempt: TurnAttempt): Promise<RunRecord | undefined> {
    let value: unknown = attempt;
    for (const step of this.steps.prepare.steps) {
      value = await step.run(value);
      if (value instanceof TurnResult) break;
    }
    if (!(value instanceof TurnResult)) throw new Error('the turn steps ended without a result');
    if (attempt.abandoned) return undefined;
    for (const step of this.steps.finish.steps) value = await step.run(value);
    return (value as RecordedTurn).finished;
  }
}
