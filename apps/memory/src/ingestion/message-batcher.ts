/**
 * Groups items into batches: a batch is handed on when it holds `size` items, or `waitMs` after
 * its first item arrived, whichever comes first (so a lone item waits at most `waitMs`).
 */
export class MessageBatcher<T> {
  private pending: T[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly size: number,
    private readonly waitMs: number,
    private readonly handOn: (batch: T[]) => void,
  ) {}

  add(item: T): void {
    this.pending.push(item);
    if (this.pending.length >= this.size) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.waitMs);
  }

  /** Hands on what is pending now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.handOn(batch);
  }

  /** Stops the timer and returns what was pending, without handing it on. */
  takePending(): T[] {
    clearTimeout(this.timer);
    this.timer = undefined;
    const pending = this.pending;
    this.pending = [];
    return pending;
  }
}
