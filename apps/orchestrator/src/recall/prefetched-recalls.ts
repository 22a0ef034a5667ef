import type { MemoryRecallOutcome, RecallQuery } from './recall-report.js';

export interface PrefetchLimits {
  /** How long a prefetched recall waits for its run; a run that starts later recalls afresh. */
  maxAgeMs: number;
  /** Prefetched recalls held at once; past it, runs recall when they start, as without prefetching. */
  maxEntries: number;
}

/**
 * A message's run waits in the conversation queue for its lease and claim: 5 s covers a queue
 * behind a short turn, and a recall older than that is read again rather than trusted.
 */
export const DEFAULT_PREFETCH_LIMITS: PrefetchLimits = { maxAgeMs: 5_000, maxEntries: 10_000 };

interface Entry {
  query: RecallQuery;
  outcome: Promise<MemoryRecallOutcome>;
  timer: NodeJS.Timeout;
}

/**
 * Recalls started when a message arrives, before its run is admitted, leased and claimed, so that
 * memory's search runs alongside that work instead of after it. Each is taken at most once, by
 * the run it was started for, and only when that run asks for the same tenant, conversation and
 * text; one nobody takes (the message was refused, or another replica runs it) is dropped after
 * `maxAgeMs`.
 */
export class PrefetchedRecalls {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly limits: PrefetchLimits = DEFAULT_PREFETCH_LIMITS) {}

  get size(): number {
    return this.entries.size;
  }

  /** Starts `recall` for the run unless one is held for it already or the table is full; says whether it started. */
  put(runId: string, query: RecallQuery, recall: () => Promise<MemoryRecallOutcome>): boolean {
    if (this.entries.has(runId) || this.entries.size >= this.limits.maxEntries) return false;
    const outcome = recall();
    // Nobody may ever take it: its failure must not become an unhandled rejection.
    outcome.catch(() => undefined);
    const timer = setTimeout(() => this.entries.delete(runId), this.limits.maxAgeMs);
    timer.unref();
    this.entries.set(runId, { query, outcome, timer });
    return true;
  }

  /** The run's prefetched outcome if it asks what was prefetched; the entry is gone either way. */
  take(runId: string, query: RecallQuery): Promise<MemoryRecallOutcome> | undefined {
    const entry = this.entries.get(runId);
    if (!entry) return undefined;
    this.entries.delete(runId);
    clearTimeout(entry.timer);
    const same =
      entry.query.tenantId === query.tenantId &&
      entry.query.conversationId === query.conversationId &&
      entry.query.query === query.query &&
      entry.query.budgetTokens === query.budgetTokens;
    return same ? entry.outcome : undefined;
  }
}
