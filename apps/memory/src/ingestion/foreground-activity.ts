/**
 * Counts the calls a turn is waiting for (recalls) that are running in this process, so background
 * work (ingestion) can let them go first: {@link quiet} resolves once none is running, or after a
 * bound, so background work is delayed, never starved.
 */
export class ForegroundActivity {
  private runningCalls = 0;
  private waiters = new Set<() => void>();

  get running(): number {
    return this.runningCalls;
  }

  /** Runs `work` counted as foreground. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.runningCalls += 1;
    try {
      return await work();
    } finally {
      this.runningCalls -= 1;
      if (this.runningCalls === 0) this.wakeAll();
    }
  }

  /** Resolves once no foreground call is running, or after `maxWaitMs` (at once when none is running or the bound is 0). */
  quiet(maxWaitMs: number): Promise<void> {
    if (this.runningCalls === 0 || maxWaitMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      this.waiters.add(done);
    });
  }

  private wakeAll(): void {
    for (const done of [...this.waiters]) done();
  }
}
