/** How a recall that held a slot ended, as the limit reads it. */
export type RecallEnd =
  /** Answered within its deadline: memory kept up, the limit may grow. */
  | 'answered'
  /** Ran into its deadline: memory is overloaded, the limit shrinks. */
  | 'timed_out'
  /** Refused or failed at once (memory down, a bad request): says nothing about load. */
  | 'failed';

export interface RecallConcurrencyLimitOptions {
  /** The most recalls in flight at once (the limit never grows past it); 0 = no limit. */
  max: number;
  /** The limit never shrinks below it, so a few recalls always probe whether memory recovered. */
  min?: number;
  /** The limit's factor after a recall times out (at most once per round of recalls). */
  backoff?: number;
}

/**
 * An adaptive cap on the recalls one orchestrator has in flight to the memory service (additive
 * increase, multiplicative decrease, as TCP's congestion window). A recall that would pass the cap
 * is not sent: the turn goes on at once without recalled memory, instead of waiting out the
 * deadline of a recall an overloaded memory service would answer too late, and memory's CPU goes
 * to the recalls that can still finish in time. Each recall answered within its deadline grows the
 * limit by 1/limit (about one per round of recalls); a recall that times out shrinks it by
 * `backoff`, once for the recalls started under the same limit, so a burst of timeouts from one
 * overload counts once.
 */
export class RecallConcurrencyLimit {
  private readonly max: number;
  private readonly min: number;
  private readonly backoff: number;
  private current: number;
  private running = 0;
  /** Bumped at each decrease; a recall started before the last one does not decrease again. */
  private epoch = 0;

  constructor(options: RecallConcurrencyLimitOptions) {
    if (!Number.isInteger(options.max) || options.max < 0)
      throw new RangeError(`max must be a non-negative integer, got ${options.max}`);
    this.max = options.max;
    this.min = Math.min(options.min ?? 1, Math.max(options.max, 1));
    this.backoff = options.backoff ?? 0.75;
    if (!(this.backoff > 0 && this.backoff < 1)) throw new RangeError(`backoff must be in (0, 1), got ${this.backoff}`);
    this.current = Math.max(options.max, this.min);
  }

  /** Whether a limit applies at all (`max` > 0). */
  get enabled(): boolean {
    return this.max > 0;
  }

  /** The recalls allowed in flight now (`max` when disabled). */
  get limit(): number {
    return Math.floor(this.current);
  }

  get inFlight(): number {
    return this.running;
  }

  /**
   * Takes a slot if one is free: the returned function gives it back with how the recall ended
   * (call it exactly once). `undefined` means the recall must not be sent.
   */
  tryAcquire(): ((end: RecallEnd) => void) | undefined {
    if (this.enabled && this.running >= this.limit) return undefined;
    this.running++;
    const startedIn = this.epoch;
    let released = false;
    return (end) => {
      if (released) return;
      released = true;
      this.running--;
      if (this.enabled) this.adjust(end, startedIn);
    };
  }

  private adjust(end: RecallEnd, startedIn: number): void {
    if (end === 'answered') {
      this.current = Math.min(this.max, this.current + 1 / this.current);
    } else if (end === 'timed_out' && startedIn === this.epoch) {
      this.current = Math.max(this.min, this.current * this.backoff);
      this.epoch++;
    }
  }
}
