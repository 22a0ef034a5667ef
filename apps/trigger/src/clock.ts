/**
 * The service's idea of "now". Every decision about time (what is due, what was missed, when a
 * lease ran out) reads this clock and passes the instant to Postgres as a parameter, never
 * `now()` in SQL, so tests move time forward by hand instead of waiting.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that stands still until moved: for tests of schedules, downtime and leases. */
export class ManualClock implements Clock {
  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  set(instant: number | Date | string): void {
    this.current = new Date(instant).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
