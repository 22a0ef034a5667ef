/**
 * Pause, resume, interrupt and cancel for a running loop. Cancelling aborts `signal`; pausing holds the
 * loop at the start of its next iteration until `resume()` (or cancellation).
 */
export class RunControl {
  private readonly controller = new AbortController();
  private pausedReason: string | undefined;
  private resumeWaiters: Array<() => void> = [];
  private interrupted = false;

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get isPaused(): boolean {
    return this.pausedReason !== undefined;
  }

  get pauseReason(): string | undefined {
    return this.pausedReason;
  }

  pause(reason = 'paused'): void {
    this.pausedReason = reason;
  }

  resume(): void {
    this.pausedReason = undefined;
    const waiters = this.resumeWaiters;
    this.resumeWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Set by interrupt(): the loop stops at its next step boundary (`interrupted`). */
  get interruptRequested(): boolean {
    return this.interrupted;
  }

  /**
   * Asks the loop to stop at its next safe point: after the step in progress (its tool calls
   * answered), before the next model call. Unlike cancel(), the step in progress is not aborted.
   */
  interrupt(): void {
    this.interrupted = true;
    this.resume();
  }

  cancel(reason = 'cancelled'): void {
    this.controller.abort(new Error(reason));
    this.resume();
  }

  /** Resolves when not paused (at once if it is not). */
  waitUntilResumed(): Promise<void> {
    if (!this.isPaused) return Promise.resolve();
    return new Promise((resolve) => this.resumeWaiters.push(resolve));
  }
}
