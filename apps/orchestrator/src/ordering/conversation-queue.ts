import { compositeKey } from '@platform/contracts';
import { errors, type Logger } from '@platform/service-kit';
import { isLive, type ClaimedRun, type NewRun, type RunRecord, type RunRecords } from '../journal/run-records.js';
import type { RunExecutor } from './run-executor.js';
import type { EndedRun, RunEndPublisher } from '../events/publish-run-end.js';
import type { ConversationLease, HeldLease } from './conversation-lease.js';
import { ErrorCodes } from '../error-codes.js';

export interface ConversationQueueOptions {
  records: RunRecords;
  lease: ConversationLease;
  /**
   * Runs each claimed run (the turn); an interface of the queue's own, so it never imports the
   * turn. Absent here, it is given by {@link ConversationQueue.serve} before the first run.
   */
  executor?: RunExecutor;
  owner: string;
  leaseMs: number;
  /**
   * How often a waiter re-checks its run when another process holds the conversation. A run-ended
   * notice from that process (see {@link ConversationQueue.runEndedElsewhere}) wakes it at once;
   * the poll is the fallback for a notice lost (core NATS) or a holder that died.
   */
  pollIntervalMs: number;
  /** Announces each run this replica finishes, once the conversation's lease is free when the drain ends there; absent = not announced. */
  runEnds?: RunEndPublisher;
  logger: Logger;
}

interface Drain {
  /** New work arrived while draining: look again before letting go of the lease. */
  again: boolean;
  done: Promise<void>;
}

interface Waiter {
  resolve: (record: RunRecord) => void;
  reject: (error: unknown) => void;
}

/** A new message's run that the drain records (and claims, when it can) before anything else. */
interface Admission {
  run: NewRun;
  settle: (outcome: { created: boolean } | { error: unknown }) => void;
  /** Set when recording failed: the caller was told, so the drain does not log it again. */
  failure?: unknown;
}

/** Tells the admission's caller why its message was not recorded, and fails the drain with it. */
function refuse(admission: Admission, error: unknown): never {
  admission.failure = error;
  admission.settle({ error });
  throw error;
}

const key = (tenantId: string, conversationId: string): string => compositeKey(tenantId, conversationId);
/** Waits `ms`, or less when `wake` is called first. */
function nap(ms: number, wakers: Set<() => void>): Promise<void> {
  return new Promise((resolve) => {
    const wake = (): void => {
      clearTimeout(timer);
      wakers.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    wakers.add(wake);
  });
}

/**
 * Runs each conversation's runs one at a time, in arrival order, across every orchestrator
 * replica. Whoever holds the conversation's lease drains its live runs oldest first (its own and
 * those other replicas accepted); everyone else waits for their run to be finished. A holder that
 * dies stops renewing; when its leases expire a waiter (or the recovery sweeper) takes over and
 * resumes the run it was working on from the journal.
 */
export class ConversationQueue {
  private readonly drains = new Map<string, Drain>();
  /** By tenant and run id: a waiter only ever hears of its own tenant's run. */
  private readonly waiters = new Map<string, Waiter[]>();
  /** Per conversation, the runs that requests here wait for and that are not finished yet. */
  private readonly waited = new Map<string, Set<string>>();
  /** Per conversation, the waiters' polls asleep now: a run-ended notice wakes them. */
  private readonly sleepers = new Map<string, Set<() => void>>();

  constructor(private readonly options: ConversationQueueOptions) {
    this.executor = options.executor;
  }

  /** Set by close(): no drain starts and none goes on to a next run (the process is stopping). */
  private closed = false;
  private executor: RunExecutor | undefined;

  /**
   * Gives the queue the executor of its runs. server.ts builds the queue before the turn's steps
   * (the teams' child runs go through the queue), then the turn runner, then hands it over here.
   */
  serve(executor: RunExecutor): void {
    this.executor = executor;
  }

  /**
   * Stops taking work: no conversation starts draining here any more, and running drains stop
   * after their current run. Runs left queued are taken by another replica (or this one again).
   */
  close(): void {
    this.closed = true;
  }

  /**
   * Ends every wait for a run with `error` (shutdown: the callers are told to go elsewhere, where
   * the runs resume). The runs themselves are not touched.
   */
  endWaits(error: unknown): void {
    for (const list of this.waiters.values()) for (const waiter of list) waiter.reject(error);
  }

  /** Makes sure someone drains the conversation, starting here when nobody does. */
  kick(tenantId: string, conversationId: string): void {
    const running = this.drains.get(key(tenantId, conversationId));
    if (running) running.again = true;
    else this.startDrain(tenantId, conversationId);
  }

  /**
   * Records a new message's run and makes sure someone drains its conversation. When this replica
   * is not draining the conversation yet, the drain starts with the message: it takes the
   * conversation's lease and records the run already claimed when nothing else is live there
   * (one statement instead of a record and a claim). Resolves with false when the run id exists.
   */
  async admit(run: NewRun): Promise<boolean> {
    if (this.closed)
      throw errors.unavailable(ErrorCodes.SHUTTING_DOWN, 'this orchestrator is shutting down; try another', {
        retryAfterSeconds: 1,
      });
    const running = this.drains.get(key(run.tenantId, run.conversationId));
    if (running) {
      const created = await this.options.records.create(run);
      this.kick(run.tenantId, run.conversationId);
      return created;
    }
    const outcome = await new Promise<{ created: boolean } | { error: unknown }>((settle) =>
      this.startDrain(run.tenantId, run.conversationId, { run, settle }),
    );
    if ('error' in outcome) throw outcome.error;
    return outcome.created;
  }

  private startDrain(tenantId: string, conversationId: string, admission?: Admission): void {
    if (this.closed) {
      admission?.settle({
        error: errors.unavailable(ErrorCodes.SHUTTING_DOWN, 'this orchestrator is shutting down; try another', {
          retryAfterSeconds: 1,
        }),
      });
      return;
    }
    const k = key(tenantId, conversationId);
    const drain: Drain = { again: false, done: Promise.resolve() };
    drain.done = this.drain(tenantId, conversationId, drain, admission)
      .catch((err: unknown) => {
        // An admission that failed was reported to its caller; anything else is logged here.
        if (admission?.failure !== err)
          this.options.logger.error({ err, tenantId, conversationId }, 'draining the conversation failed');
      })
      .finally(() => this.drains.delete(k));
    this.drains.set(k, drain);
  }

  /** Resolves with the run once it is finished, whoever ran it; rejects when `signal` aborts. */
  async waitForRun(tenantId: string, conversationId: string, runId: string, signal: AbortSignal): Promise<RunRecord> {
    const k = key(tenantId, conversationId);
    const waitedHere = this.waited.get(k) ?? new Set<string>();
    waitedHere.add(runId);
    this.waited.set(k, waitedHere);
    let waiter: Waiter | undefined;
    const finished = new Promise<RunRecord>((resolve, reject) => {
      waiter = { resolve, reject };
      const list = this.waiters.get(key(tenantId, runId)) ?? [];
      list.push(waiter);
      this.waiters.set(key(tenantId, runId), list);
    });
    let stop = false;
    const poll = async (): Promise<RunRecord> => {
      // Another replica may be running it: look now and then, and take over when nobody drains.
      const sleepers = this.sleepers.get(k) ?? new Set<() => void>();
      this.sleepers.set(k, sleepers);
      while (!stop) {
        // While this replica drains the conversation, the drain answers this waiter: no poll (a
        // timer per waiting run, every interval, is what thousands of runs waiting on their model
        // would cost) until that drain ends, and no query to Postgres.
        const local = this.drains.get(k);
        if (local) {
          await local.done;
          continue;
        }
        await nap(this.options.pollIntervalMs, sleepers);
        if (stop) break;
        if (this.drains.has(k)) continue;
        const record = await this.options.records.get(tenantId, runId);
        if (record && !isLive(record.status)) return record;
        this.kick(tenantId, conversationId);
      }
      return new Promise<RunRecord>(() => undefined);
    };
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason as Error);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([finished, poll(), aborted]);
    } finally {
      stop = true;
      // The caller's signal may outlive this wait (one signal for many waits): leave nothing on it.
      if (onAbort) signal.removeEventListener('abort', onAbort);
      // Only this waiter leaves: the same run may have others (e.g. a retry attached to it).
      const rest = (this.waiters.get(key(tenantId, runId)) ?? []).filter((w) => w !== waiter);
      if (rest.length) this.waiters.set(key(tenantId, runId), rest);
      else this.waiters.delete(key(tenantId, runId));
      if (!rest.length) this.forgetWaited(k, runId);
      if (!this.waited.has(k)) this.sleepers.delete(k);
    }
  }

  /** Whether requests here wait for runs that no drain of this replica runs (only then do run-ended notices matter here). */
  get waitsElsewhere(): boolean {
    for (const k of this.waited.keys()) if (!this.drains.has(k)) return true;
    return false;
  }

  /**
   * Another replica announced that it finished a run (`RunEnded`, core NATS): requests here that
   * wait for that run get it now, and the other waits of its conversation look at once (their run
   * may be next, and the conversation's lease is free: the announcing replica sends the notice of
   * its drain's last run after letting the lease go), instead of at their next poll.
   */
  async runEndedElsewhere(ended: Pick<EndedRun, 'tenantId' | 'conversationId' | 'runId'>): Promise<void> {
    const k = key(ended.tenantId, ended.conversationId);
    if (!this.waited.has(k) || this.drains.has(k)) return;
    if (this.waiters.has(key(ended.tenantId, ended.runId))) {
      const record = await this.options.records.get(ended.tenantId, ended.runId);
      if (record && !isLive(record.status)) this.notify(record);
    }
    for (const wake of [...(this.sleepers.get(k) ?? [])]) wake();
  }

  /** Waits for local drains to end (shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.drains.values()].map((d) => d.done));
  }

  private notify(run: RunRecord): void {
    const list = this.waiters.get(key(run.tenantId, run.runId));
    for (const waiter of list ?? []) waiter.resolve(run);
    this.forgetWaited(key(run.tenantId, run.conversationId), run.runId);
  }

  private forgetWaited(k: string, runId: string): void {
    const runs = this.waited.get(k);
    runs?.delete(runId);
    if (runs?.size === 0) this.waited.delete(k);
  }

  /**
   * The conversation's lease. Without Redis the conversation still runs: Postgres issues the
   * fencing token, and the run leases there keep one run at a time in order (the Redis lease only
   * saves replicas from contending for the same conversation).
   */
  private async acquire(tenantId: string, conversationId: string): Promise<HeldLease | undefined> {
    try {
      return await this.options.lease.acquire(tenantId, conversationId);
    } catch (err) {
      this.options.logger.warn(
        { err: (err as Error).message, tenantId, conversationId },
        'conversation lease unavailable (Redis); ordering by Postgres alone',
      );
      const token = (await this.options.records.highestFence(tenantId, conversationId)) + 1;
      return { token, renew: () => Promise.resolve(true), release: () => Promise.resolve() };
    }
  }

  /** Records an admitted run: claimed at once when `held` is this drain's lease and nothing else is live. */
  private async record(admission: Admission, held: HeldLease | undefined): Promise<ClaimedRun | undefined> {
    const { records, owner, leaseMs } = this.options;
    try {
      if (!held) {
        admission.settle({ created: await records.create(admission.run) });
        return undefined;
      }
      const { created, claimed } = await records.admit(admission.run, owner, leaseMs, held.token);
      admission.settle({ created });
      return claimed;
    } catch (error) {
      refuse(admission, error);
    }
  }

  private async drain(tenantId: string, conversationId: string, drain: Drain, admission?: Admission): Promise<void> {
    const { records, lease, owner, leaseMs, logger, runEnds } = this.options;
    let pending = admission;
    /** The run that ends the drain, announced once the lease is free (the others at once: the drain goes on with the lease). */
    let lastFinished: RunRecord | undefined;
    do {
      drain.again = false;
      const admitting = pending;
      pending = undefined;
      let held: HeldLease | undefined;
      try {
        held = await this.acquire(tenantId, conversationId);
      } catch (error) {
        if (admitting) refuse(admitting, error);
        throw error;
      }
      if (!held) {
        // Another holder drains; the run is recorded for it, and waiters poll.
        if (admitting) await this.record(admitting, undefined);
        return;
      }
      try {
        let first = admitting ? await this.record(admitting, held) : undefined;
        for (;;) {
          let claimed = first;
          first = undefined;
          if (!claimed) {
            const found = await records.claimNext(tenantId, conversationId, owner, leaseMs, held.token);
            if (!found.next) {
              drain.again = false; // nothing left; a kick from now on makes the outer loop look again
              break;
            }
            if (!found.claimed) {
              const highest = await records.highestFence(tenantId, conversationId);
              if (highest > held.token) {
                // Redis forgot tokens Postgres has seen (a flush): issue higher ones from now on.
                await lease.raiseTokensAbove(tenantId, conversationId, highest);
                drain.again = true;
              }
              // Otherwise the run's holder is alive elsewhere (its lease has not expired): wait.
              break;
            }
            claimed = found.claimed;
          }
          if (claimed.attempts > 1)
            logger.info(
              { runId: claimed.runId, attempt: claimed.attempts },
              'claimed a run another holder left unfinished',
            );
          drain.again = false;
          if (!this.executor) throw new Error('the conversation queue has no executor (serve() was not called)');
          const finished = await this.executor.execute(claimed, held);
          if (finished) this.notify(finished);
          // Look for more only when requests here wait for more runs of this conversation (or a
          // message arrived meanwhile); a run another replica accepted is picked up by its own
          // waiter (told by the run-ended notice, or its poll) or the recovery sweep. That saves a
          // query per turn.
          if (this.closed || (!drain.again && !this.waited.has(key(tenantId, conversationId)))) {
            lastFinished = finished;
            break;
          }
          if (finished) runEnds?.announce(endedRun(finished));
        }
      } finally {
        await held.release().catch(() => undefined);
        if (lastFinished) runEnds?.announce(endedRun(lastFinished));
        lastFinished = undefined;
      }
    } while (drain.again && !this.closed);
  }
}

function endedRun(run: RunRecord): EndedRun {
  return {
    tenantId: run.tenantId,
    conversationId: run.conversationId,
    runId: run.runId,
    stopReason: run.stopReason ?? 'unknown',
  };
}
