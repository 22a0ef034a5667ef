import type { Logger } from '@platform/service-kit';
import type { Clock } from './clock.js';
import type { ClaimedFire, FireStore } from './fire-store.js';

/** Fires marked started per statement when their time comes. */
const MARK_CHUNK = 256;
/**
 * Mark statements in flight at once: a few, so the first fires start after one small statement
 * instead of after dozens that share the database's CPU, while the next marks overlap executions.
 */
const MARK_CONCURRENCY = 2;

/**
 * Fires this replica claimed ahead of their time, held in memory until it comes, with one timer
 * per due instant (a burst of coinciding fires is one timer). When an instant comes, its fires are
 * marked started (a few set-based statements without a durable commit) and those this replica
 * still holds — not paused, edited or deleted since — are handed to `start`, which executes them.
 * If the mark fails, the fires are dropped: their leases run out and they are claimed again.
 */
export class ClaimedAheadFires {
  private readonly byDue = new Map<number, ClaimedFire[]>();
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private held = 0;
  /** `startDue` calls marking fires now. */
  private marking = 0;

  constructor(
    private readonly store: FireStore,
    private readonly clock: Clock,
    private readonly start: (fires: ClaimedFire[]) => void,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.held;
  }

  /** Fires whose time came are being marked started right now. */
  get starting(): boolean {
    return this.marking > 0;
  }

  hold(fires: ClaimedFire[]): void {
    for (const item of fires) {
      const dueMs = item.fire.due_at.getTime();
      const group = this.byDue.get(dueMs);
      if (group) group.push(item);
      else {
        this.byDue.set(dueMs, [item]);
        this.arm(dueMs);
      }
    }
    this.held += fires.length;
  }

  /** Starts every held fire whose time has come (timers call it; so does each dispatch round). */
  async startDue(): Promise<void> {
    const nowMs = this.clock.now();
    const due: ClaimedFire[] = [];
    for (const [dueMs, fires] of this.byDue) {
      if (dueMs > nowMs) {
        // A timer that fired before the clock reached its instant waits again.
        if (!this.timers.has(dueMs)) this.arm(dueMs);
        continue;
      }
      due.push(...fires);
      this.byDue.delete(dueMs);
      clearTimeout(this.timers.get(dueMs));
      this.timers.delete(dueMs);
    }
    if (due.length === 0) return;
    this.held -= due.length;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < due.length) {
        const chunk = due.slice(next, next + MARK_CHUNK);
        next += MARK_CHUNK;
        await this.markAndStart(chunk, nowMs);
      }
    };
    this.marking++;
    try {
      await Promise.all(Array.from({ length: MARK_CONCURRENCY }, worker));
    } finally {
      this.marking--;
    }
  }

  /** Stops the timers and gives the fires not started back (shutdown), so other replicas run them on time. */
  async release(): Promise<void> {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    const fires = [...this.byDue.values()].flat();
    this.byDue.clear();
    this.held = 0;
    await this.store.releaseUnstarted(fires.map((f) => f.fire));
  }

  private arm(dueMs: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(dueMs);
        void this.startDue();
      },
      Math.max(0, dueMs - this.clock.now()),
    );
    timer.unref();
    this.timers.set(dueMs, timer);
  }

  private async markAndStart(chunk: ClaimedFire[], nowMs: number): Promise<void> {
    try {
      const held = await this.store.markStarted(
        chunk.map((c) => c.fire),
        nowMs,
      );
      if (held.size < chunk.length)
        this.logger.debug(
          { dropped: chunk.length - held.size },
          'fires claimed ahead were cancelled before their time',
        );
      this.start(chunk.filter((c) => held.has(c.fire.fire_id)));
    } catch (err) {
      this.logger.error(
        { err, fires: chunk.length },
        'could not start fires claimed ahead; they are claimed again when their leases run out',
      );
    }
  }
}
