import { compositeKey } from '@platform/contracts';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests left in the current window (0 when refused). */
  remaining: number;
  /** When refused: how long until a request would be allowed. */
  retryAfterMs: number;
}

// One round trip: count this request in the current window and read the window's expiry.
const CONSUME = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {count, ttl}
`;

/**
 * Fixed-window request counting in Redis, shared by every replica. Redis holds only what may be
 * lost: when it is unreachable the limiter lets requests through (and logs it) rather than
 * refusing service.
 */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly keyPrefix = 'rate',
  ) {}

  /**
   * Counts one request against `limit` per `windowMs` for `key`: its parts (e.g. `['turns', tenantId]`)
   * are encoded with `compositeKey`, so tenant-chosen parts can never make two keys one.
   */
  async consume(key: readonly string[], limit: number, windowMs: number): Promise<RateLimitDecision> {
    const now = Date.now();
    const windowId = Math.floor(now / windowMs);
    // The key lives until its window ends, so its time-to-live is exactly the wait for the next window.
    const untilWindowEnd = windowMs - (now % windowMs);
    try {
      const [count, ttl] = (await this.redis.eval(
        CONSUME,
        1,
        `${this.keyPrefix}:${compositeKey(...key, String(windowId))}`,
        String(untilWindowEnd),
      )) as [number, number];
      if (count <= limit) return { allowed: true, remaining: limit - count, retryAfterMs: 0 };
      return { allowed: false, remaining: 0, retryAfterMs: ttl > 0 ? Math.min(ttl, untilWindowEnd) : untilWindowEnd };
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, key }, 'rate limiter unavailable; letting the request through');
      return { allowed: true, remaining: limit, retryAfterMs: 0 };
    }
  }
}
