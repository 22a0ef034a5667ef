import type { Logger } from '@platform/service-kit';
import { isLive, type RunRecord, type RunRecords } from '../journal/run-records.js';
import type { TurnExecutor } from '../turn-executor.js';
import type { ConversationLease, HeldLease } from './conversation-lease.js';

export interface ConversationQueueOptions {
  records: RunRecords;
  lease: ConversationLease;
  executor: TurnExecutor;
  owner: string;
  leaseMs: number;
  /** How often a waiter re-checks its run when another process holds the conversation. */
  pollIntervalMs: number;
  logger: Logger;
}

interface Drain {
  /** New work arrived while draining: look again before letting go of the lease. */
  again: boolean;
  done: Promise<void>;
}

interface Waiter {
  resolve: (record: RunRecord) => void;
}

const key = (tenantId: string, conversationId: string): string => `${tenantId}\u0000${conversationId}`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs each conversation's runs one at a time, in arrival order, across every orchestrator
 * replica. Whoever holds the conversation's lease drains its live runs oldest first (its own and
 * those other replicas accepted); everyone else waits for their run to be finished. A holder that
 * dies stops renewing; when its leases expire a waiter (or the recovery sweeper) takes over and
 * resumes the run it was working on from the journal.
 */
export class ConversationQueue {
  private readonly drains = new Map<string, Drain>();
  private readonly waiters = new Map<string, Waiter[]>();
  /** Per conversation, the runs that requests here wait for and that are not finished yet. */
  private readonly waited = new Map<string, Set<string>>();

  constructor(private readonly options: ConversationQueueOptions) {}

  /** Makes sure someone drains the conversation, starting here when nobody does. */
  kick(tenantId: string, conversationId: string): void {
    const k = key(tenantId, conversationId);
    const running = this.drains.get(k);
    if (running) {
      running.again = true;
      return;
    }
    const drain: Drain = { again: false, done: Promise.resolve() };
    drain.done = this.drain(tenantId, conversationId, drain)
      .catch((err: unknown) => this.options.logger.error({ err, tenantId, conversationId }, 'draining the conversation failed'))
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
    const finished = new Promise<RunRecord>((resolve) => {
      waiter = { resolve };
      const list = this.waiters.get(runId) ?? [];
      list.push(waiter);
      this.waiters.set(runId, list);
    });
    let stop = false;
    const poll = async (): Promise<RunRecord> => {
      // Another replica may be running it: look now and then, and take over when nobody drains.
      while (!stop) {
        await sleep(this.options.pollIntervalMs);
        if (stop) break;
        // While this replica drains the conversation, the drain answers this waiter: asking
        // Postgres would only add a query to every turn slower than the interval (i.e. under load).
        if (this.drains.has(k)) continue;
        const record = await this.options.records.get(tenantId, runId);
        if (record && !isLive(record.status)) return record;
        this.kick(tenantId, conversationId);
      }
      return new Promise<RunRecord>(() => undefined);
    };
    const aborted = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason as Error);
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    });
    try {
      return await Promise.race([finished, poll(), aborted]);
    } finally {
      stop = true;
      // Only this waiter leaves: the same run may have others (e.g. a retry attached to it).
      const rest = (this.waiters.get(runId) ?? []).filter((w) => w !== waiter);
      if (rest.length) this.waiters.set(runId, rest);
      else this.waiters.delete(runId);
      if (!rest.length) this.forgetWaited(k, runId);
    }
  }

  /** Waits for local drains to end (shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.drains.values()].map((d) => d.done));
  }

  private notify(run: RunRecord): void {
    const list = this.waiters.get(run.runId);
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
      this.options.logger.warn({ err: (err as Error).message, tenantId, conversationId }, 'conversation lease unavailable (Redis); ordering by Postgres alone');
      const token = (await this.options.records.highestFence(tenantId, conversationId)) + 1;
      return { token, renew: () => Promise.resolve(true), release: () => Promise.resolve() };
    }
  }

  private async drain(tenantId: string, conversationId: string, drain: Drain): Promise<void> {
    const { records, lease, executor, owner, leaseMs, logger } = this.options;
    do {
      drain.again = false;
      const held = await this.acquire(tenantId, conversationId);
      if (!held) return; // another holder drains; waiters poll
      try {
        for (;;) {
          const { next, claimed } = await records.claimNext(tenantId, conversationId, owner, leaseMs, held.token);
          if (!next) {
            drain.again = false; // nothing left; a kick from now on makes the outer loop look again
            break;
          }
          if (!claimed) {
            const highest = await records.highestFence(tenantId, conversationId);
            if (highest > held.token) {
              // Redis forgot tokens Postgres has seen (a flush): issue higher ones from now on.
              await lease.raiseTokensAbove(tenantId, conversationId, highest);
              drain.again = true;
            }
            // Otherwise the run's holder is alive elsewhere (its lease has not expired): wait.
            break;
          }
          if (claimed.attempts > 1) logger.info({ runId: claimed.runId, attempt: claimed.attempts }, 'claimed a run another holder left unfinished');
          drain.again = false;
          const finished = await executor.execute(claimed, held);
          if (finished) this.notify(finished);
          // Look for more only when requests here wait for more runs of this conversation (or a
          // message arrived meanwhile); a run another replica accepted is picked up by its own
          // waiter (or the recovery sweep). That saves a query per turn.
          if (!drain.again && !this.waited.has(key(tenantId, conversationId))) break;
        }
      } finally {
        await held.release().catch(() => undefined);
      }
    } while (drain.again);
  }
}
