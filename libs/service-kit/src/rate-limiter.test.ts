import { allocateSuiteRedis } from '@platform/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { RateLimiter } from './rate-limiter.js';
import { createRedis } from './redis.js';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('RateLimiter', () => {
  it('allows up to the limit per window and says when to retry', async () => {
    const redis = createRedis({ url: await allocateSuiteRedis(), name: 'limiter', logger });
    const limiter = new RateLimiter(redis, logger);
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume(['tenant-a'], 3, 60_000));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    // The wait is until the current fixed window ends, never longer.
    const windowEnd = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    expect(decisions[3]!.retryAfterMs).toBeGreaterThan(0);
    expect(decisions[3]!.retryAfterMs).toBeLessThanOrEqual(windowEnd - Date.now() + 50);
    // Another key has its own budget.
    expect((await limiter.consume(['tenant-b'], 3, 60_000)).allowed).toBe(true);
    redis.disconnect();
  });

  it('lets requests through when Redis is unreachable', async () => {
    const redis = createRedis({ url: 'redis://127.0.0.1:1', name: 'limiter', logger });
    const decision = await new RateLimiter(redis, logger).consume(['tenant-a'], 1, 1_000);
    expect(decision.allowed).toBe(true);
    redis.disconnect();
  });
});
