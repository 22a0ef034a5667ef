import type { Clock } from '../clock.js';

interface Timer {
  at: number;
  resolve: () => void;
}

/**
 * A manual clock: time moves only when `advance` or `settle` moves it, so backoff and deadlines
 * are tested in virtual time. `sleeps` records every requested wait, in order.
 */
export class FakeClock implements Clock {
  private time: number;
  private timers: Timer[] = [];
  readonly sleeps: number[] = [];

  constructor(start = 1_700_000_000_000) {
    this.time = start;
  }

  now = (): number => this.time;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const timer: Timer = { at: this.time + ms, resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((t) => t !== timer);
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
  };

  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.time = next.at;
      this.timers = this.timers.filter((t) => t !== next);
      next.resolve();
    }
    this.time = target;
  }

  /**
   * Runs `work` to completion: whenever nothing else can happen, jumps to the next timer.
   * Everything the work waits on must be a promise or a timer of this clock.
   */
  async settle<T>(work: Promise<T>): Promise<T> {
    let done = false;
    void work.then(
      () => (done = true),
      () => (done = true),
    );
    for (let guard = 0; guard < 10_000; guard++) {
      for (let i = 0; i < 5 && !done; i++) await new Promise((r) => setImmediate(r));
      if (done) return work;
      const next = [...this.timers].sort((a, b) => a.at - b.at)[0];
      if (!next) throw new Error('work is stuck: nothing pending on the fake clock');
      this.advance(next.at - this.time);
    }
    throw new Error('work did not settle after 10,000 clock steps');
  }
}
