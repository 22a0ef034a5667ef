/**
 * Remembers what verified tokens proved, so a client that sends the same token with every request
 * is not re-verified (signature and claims) each time. An entry is used until the token expires
 * (`exp`, plus the clock tolerance verification allows) but never longer than `maxAgeMs` after it
 * was verified, so a key withdrawn from the key set stops its tokens within that time. The least
 * recently used entry is dropped when the cache is full.
 */
export class TokenCache<T> {
  private readonly entries = new Map<string, { value: T; usableUntilMs: number }>();

  constructor(
    private readonly options: {
      maxEntries: number;
      maxAgeMs: number;
      clockToleranceSeconds: number;
      now?: () => number;
    },
  ) {}

  get(token: string): T | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    this.entries.delete(token);
    if (entry.usableUntilMs <= this.now()) return undefined;
    this.entries.set(token, entry); // most recently used last
    return entry.value;
  }

  /** Keeps what `token` proved; `exp` is the token's expiry in seconds since the epoch, when it has one. */
  set(token: string, value: T, exp: number | undefined): void {
    if (this.options.maxEntries <= 0) return;
    const now = this.now();
    const expiresMs = exp === undefined ? Infinity : (exp + this.options.clockToleranceSeconds) * 1000;
    const usableUntilMs = Math.min(expiresMs, now + this.options.maxAgeMs);
    if (usableUntilMs <= now) return;
    this.entries.delete(token);
    while (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    this.entries.set(token, { value, usableUntilMs });
  }

  get size(): number {
    return this.entries.size;
  }

  private now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }
}
