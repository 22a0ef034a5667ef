import type { Clock } from './clock.js';
import type { FireSettlement, FireStore } from './fire-store.js';
import type { FireRow } from './task-row.js';

interface Queued {
  claimed: FireRow;
  settlement: FireSettlement;
  resolve: (held: boolean) => void;
  reject: (err: unknown) => void;
}

/** How often a deferred write looks again whether the fires' start is over. */
const DEFER_POLL_MS = 20;

/**
 * Group commit for fire outcomes: outcomes that arrive while a write is in flight are recorded
 * together in the next one. A burst of coinciding fires then costs a few transactions (and
 * fsyncs) instead of one per fire, while a lone fire is written at once. While `deferWhile()`
 * holds (the replica is still starting the fires of a burst) nothing is written: the database's
 * and the replica's time goes to starting the rest first, and the outcomes follow in larger groups.
 */
export class SettlementBatcher {
  private queue: Queued[] = [];
  private writing = false;

  constructor(
    private readonly store: FireStore,
    private readonly clock: Clock,
    private readonly maxBatch: number,
    private readonly deferWhile: () => boolean = () => false,
  ) {}

  /** Resolves with whether the outcome was recorded (false: the lease was lost to another replica). */
  settle(claimed: FireRow, settlement: FireSettlement): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ claimed, settlement, resolve, reject });
      if (!this.writing) void this.writeQueued();
    });
  }

  private async writeQueued(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        if (this.deferWhile()) {
          await new Promise((resolve) => setTimeout(resolve, DEFER_POLL_MS));
          continue;
        }
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const held = await this.store.settleMany(batch, this.clock.now());
          batch.forEach((item, i) => item.resolve(held[i] ?? false));
        } catch (err) {
          for (const item of batch) item.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
