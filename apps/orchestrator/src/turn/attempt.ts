import { RunControl } from '@platform/agent-loop';
import type { Logger, NatsConnection } from '@platform/service-kit';
import { RunEventPublisher } from '../events/run-event-publisher.js';
import { LeaseLostError, type ClaimedRun, type RunRecord, type RunRecords } from '../journal/run-records.js';
import type { HeldLease } from '../ordering/conversation-lease.js';
import type { LeaseHeartbeat } from '../ordering/lease-heartbeat.js';
import { isOutage } from '../run-outage.js';
import type { RunNotice } from '../cancel-broadcast.js';
import { reportFailure, SYSTEM_FAILURES } from './failure-report.js';
import { SteerNotices } from './steering.js';

/** The attempt step's input: a run the conversation queue claimed, under the conversation's lease. */
export interface ClaimedTurn {
  run: ClaimedRun;
  lease: HeldLease;
}

/**
 * One attempt at a run (the first step's output, carried by every later step): abandoned when it
 * may not go on (its lease was lost, a journal write failed, or the process stops), which stops its
 * loop. Nothing more of it is written or published; the run stays live and resumes from its
 * journal in the next attempt.
 */
export class TurnAttempt {
  abandoned: string | undefined;
  /** The run is still this process's to hand over: its lease is released at once, not left to run out. */
  handOver = false;
  readonly control = new RunControl();
  /**
   * Set by a step whose work is not the loop's (a plan): an interrupt cancels it instead, and the
   * cancelled result counts as interrupted (see {@link interruptCancelled}).
   */
  cancelsOnInterrupt = false;
  /** The attempt was cancelled because of an interrupt (a plan run). */
  interruptCancelled = false;
  /** Whether a steering message may wait to join the run (turn/steering.ts). */
  readonly steering = new SteerNotices();
  private publisher: RunEventPublisher | undefined;

  constructor(readonly run: ClaimedRun) {}

  /** The run's event publisher (opened by the attempt step before any later step runs). */
  get events(): RunEventPublisher {
    if (!this.publisher) throw new Error(`the events of run ${this.run.runId} are not open yet`);
    return this.publisher;
  }

  opened(events: RunEventPublisher): void {
    this.publisher = events;
  }

  /** A newer message asked the run to stop at its next step boundary (docs/conversations.md). */
  interrupt(): void {
    this.control.interrupt();
    if (!this.cancelsOnInterrupt || this.control.signal.aborted) return;
    this.interruptCancelled = true;
    this.control.cancel('interrupted by a newer message');
  }

  abandon(reason: string, options: { handOver?: boolean } = {}): void {
    if (this.abandoned) return;
    this.abandoned = reason;
    this.handOver = options.handOver ?? false;
    this.control.cancel(reason);
  }

  /** Whether the attempt is being given up (teams' children and plans stop waiting then). */
  readonly handingOver = (): boolean => this.abandoned !== undefined;
}

export interface AttemptStepOptions {
  /** This process's lease owner. */
  owner: string;
  records: Pick<RunRecords, 'releaseLease' | 'deferAfterOutage'>;
  /** Renews the leases of every run this replica executes, with one ticker and one statement per interval. */
  heartbeat: LeaseHeartbeat;
  nc: NatsConnection;
  /** After an outage the run is taken up again this much later (RUN_RETRY_BACKOFF_MS), within the turn's timeout (TURN_TIMEOUT_MS). */
  outage: { retryBackoffMs: number; turnTimeoutMs: number };
  /** Called once the attempt ended, however it ended (the recall step forgets the run's report). */
  ended: (runId: string) => void;
  logger: Logger;
}

/**
 * The attempt step, around the rest of the turn: tracks the attempt (cancellable, handed over at
 * shutdown), renews its leases, opens its event publisher, and settles how the attempt ended (an
 * abandoned attempt hands its lease over; an outage defers the run).
 */
export class AttemptStep {
  readonly name = 'attempt';
  private readonly active = new Map<string, TurnAttempt>();

  constructor(private readonly options: AttemptStepOptions) {}

  /**
   * Cancels a run this process is executing, interrupts it (at its next step boundary), or tells it
   * that a steering message waits for it; false when it runs elsewhere (or not at all).
   */
  notice(runId: string, notice: RunNotice): boolean {
    const attempt = this.active.get(runId);
    if (notice === 'cancel') attempt?.control.cancel('cancelled by request');
    else if (notice === 'interrupt') attempt?.interrupt();
    else attempt?.steering.notice();
    return attempt !== undefined;
  }

  /**
   * Stops every run this process executes without writing more of it, and hands each over: its
   * lease is released, so another replica resumes it from its journal at once (shutdown).
   */
  abandonAll(reason: string): number {
    for (const attempt of this.active.values()) attempt.abandon(reason, { handOver: true });
    return this.active.size;
  }

  /** Runs `rest` as this attempt; the finished run, or undefined when another holder takes it over. */
  async run(
    { run, lease }: ClaimedTurn,
    rest: (attempt: TurnAttempt) => Promise<RunRecord | undefined>,
  ): Promise<RunRecord | undefined> {
    const { logger, records, owner } = this.options;
    const attempt = new TurnAttempt(run);
    this.active.set(run.runId, attempt);
    const untrack = this.options.heartbeat.track({
      run,
      lease,
      onCancelRequested: () => attempt.control.cancel('cancelled by request'),
      onInterruptRequested: () => attempt.interrupt(),
      onLost: (err) => {
        logger.warn({ runId: run.runId, err: err.message }, 'lost the run lease; stopping without writing');
        attempt.abandon('lease lost');
      },
    });
    if (run.cancelRequested) attempt.control.cancel('cancelled by request');
    else if (run.stopRequested === 'interrupt') attempt.interrupt();
    try {
      attempt.opened(
        await RunEventPublisher.open(this.options.nc, run.runId, {
          resumed: run.attempts > 1,
          includeChunks: run.stream,
          logger,
        }),
      );
      const finished = await rest(attempt);
      if (finished) return finished;
      if (attempt.handOver)
        await records
          .releaseLease(run, owner)
          .catch((err: unknown) =>
            logger.warn(
              { runId: run.runId, err: (err as Error).message },
              'could not release the run lease; it runs out instead',
            ),
          );
      logger.warn(
        { runId: run.runId, attempt: run.attempts, reason: attempt.abandoned, handedOver: attempt.handOver },
        'attempt abandoned; the run resumes from its journal',
      );
      return undefined;
    } catch (err) {
      if (err instanceof LeaseLostError || attempt.abandoned) {
        logger.warn({ runId: run.runId }, 'run taken over by another orchestrator');
        return undefined;
      }
      if (isOutage(err)) await this.deferAfterOutage(run, err as Error);
      throw err;
    } finally {
      untrack();
      this.active.delete(run.runId);
      this.options.ended(run.runId);
    }
  }

  /** A dependency is unreachable: the run is taken up again shortly (by whoever holds it then). */
  private async deferAfterOutage(run: ClaimedRun, err: Error): Promise<void> {
    const { records, owner, outage, logger } = this.options;
    await records.deferAfterOutage(run, owner, outage.retryBackoffMs, outage.turnTimeoutMs).catch(() => undefined);
    logger.warn(
      { runId: run.runId, attempt: run.attempts, err: err.message },
      'a dependency is unreachable; the run is taken up again shortly',
    );
    reportFailure(logger, { runId: run.runId, profile: run.profile }, SYSTEM_FAILURES.outage, {
      attempt: run.attempts,
      err: err.message,
    });
  }
}
