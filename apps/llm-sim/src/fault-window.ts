import { z } from 'zod';

/**
 * A fault applied to every chat completion for a while, whatever the scenario: the provider
 * answering 500s, 429s with retry-after, or holding requests unanswered (`hang`), as a real
 * provider's outage does. Set with `POST /_sim/fault-window`, ended early with `DELETE`.
 */
export const FaultWindowSpec = z.strictObject({
  kind: z.enum(['server_error', 'rate_limit', 'hang']),
  /** How long the window lasts from now. */
  durationMs: z
    .number()
    .int()
    .positive()
    .max(10 * 60_000),
  /** `rate_limit` only: the retry-after the 429s carry (default 1 s). */
  retryAfterSeconds: z.number().positive().max(3_600).optional(),
});
export type FaultWindowSpec = z.infer<typeof FaultWindowSpec>;

/** The window in force, if any; a hung request waits on {@link FaultWindow.ended}. */
export class FaultWindow {
  private current: (FaultWindowSpec & { endsAt: number }) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private waiters: Array<() => void> = [];

  constructor(private readonly now: () => number = Date.now) {}

  open(spec: FaultWindowSpec): { endsAt: number } {
    this.close();
    const endsAt = this.now() + spec.durationMs;
    this.current = { ...spec, endsAt };
    this.timer = setTimeout(() => this.close(), spec.durationMs);
    this.timer.unref();
    return { endsAt };
  }

  /** Ends the window now; requests it holds are released (and answered as usual). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.current = undefined;
    const waiters = this.waiters;
    this.waiters = [];
    for (const release of waiters) release();
  }

  /** The fault in force for a request arriving now, if any. */
  active(): FaultWindowSpec | undefined {
    if (this.current && this.now() >= this.current.endsAt) this.close();
    return this.current;
  }

  /** Resolves when the window in force closes (at once when none is). */
  ended(): Promise<void> {
    if (!this.current) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
