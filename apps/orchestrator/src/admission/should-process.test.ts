// The should-process step against a real Redis: tier turn rates, daily token budgets, safety checks.
import { createLogger, createRedis, isPlatformError, RateLimiter, type Redis } from '@platform/service-kit';
import { allocateSuiteRedis } from '@platform/testing/vitest';
import { Redis as IORedis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrchestratorConfig } from '../config.js';
import { ShouldProcess, type AdmissionOptions, type IncomingMessage } from './should-process.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let redis: Redis;
let n = 0;

function step(overrides: Partial<AdmissionOptions> = {}): ShouldProcess {
  return new ShouldProcess({
    limiter: new RateLimiter(redis, logger, `rate-${++n}`),
    redis,
    logger,
    defaultTurnsPerMinute: 100,
    tiers: {},
    defaultTier: 'default',
    ...overrides,
  });
}
const message = (tenantId: string, tier = ''): IncomingMessage => ({
  tenantId,
  conversationId: 'c',
  content: 'hi',
  tier,
  profile: 'default',
});
async function refusal(promise: Promise<void>): Promise<{ code: string; retryAfterSeconds?: number } | undefined> {
  try {
    await promise;
    return undefined;
  } catch (err) {
    if (!isPlatformError(err)) throw err;
    return {
      code: err.code,
      ...(err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {}),
    };
  }
}

beforeAll(async () => {
  redis = createRedis({ url: await allocateSuiteRedis(), name: 'should-process', logger });
});
afterAll(() => redis.disconnect());

describe('tier limits', () => {
  it('gives a tier its own turn rate, and the default tier to tokens without one', async () => {
    const admission = step({ tiers: { free: { turnsPerMinute: 1 }, default: { turnsPerMinute: 2 } } });
    await admission.check(message('t-free', 'free'));
    expect(await refusal(admission.check(message('t-free', 'free')))).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterSeconds: expect.any(Number),
    });
    await admission.check(message('t-none'));
    await admission.check(message('t-none'));
    expect(await refusal(admission.check(message('t-none')))).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('refuses a tenant over its daily token budget until the next UTC day', async () => {
    const admission = step({ tiers: { free: { tokensPerDay: 1_000 } } });
    await admission.check(message('t-budget', 'free'));
    await admission.recordTokens('t-budget', 600);
    await admission.check(message('t-budget', 'free'));
    await admission.recordTokens('t-budget', 600);
    expect(await redis.keys('platform:tokens:t-budget.*')).toHaveLength(1); // the key the uncounted case looks for
    const refused = await refusal(admission.check(message('t-budget', 'free')));
    expect(refused).toMatchObject({ code: 'TOKEN_BUDGET_EXCEEDED' });
    expect(refused!.retryAfterSeconds).toBeLessThanOrEqual(24 * 3600);
    // Another tier (no budget) is not affected.
    await admission.check(message('t-budget', 'pro'));
  });

  it('counts nothing when no tier has a token budget', async () => {
    await step().recordTokens('t-uncounted', 500);
    expect(await redis.keys('platform:tokens:t-uncounted.*')).toEqual([]);
  });

  it('parses TENANT_TIERS at boot and names the variable when it is wrong', () => {
    const base = { OPENAI_API_KEY: 'k' };
    expect(
      OrchestratorConfig.parse({ ...base, TENANT_TIERS: '{"free":{"turnsPerMinute":10,"tokensPerDay":5000}}' })
        .TENANT_TIERS,
    ).toEqual({ free: { turnsPerMinute: 10, tokensPerDay: 5000 } });
    for (const bad of [
      'not json',
      '{"free":{"turnsPerMinute":-1}}',
      '{"free":{"seats":3}}',
      '{"no spaces allowed":{}}',
    ]) {
      const parsed = OrchestratorConfig.safeParse({ ...base, TENANT_TIERS: bad });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.path[0]).toBe('TENANT_TIERS');
    }
  });
});

describe('safety checks', () => {
  it("refuses a message a check refuses, after the limits, with the check's code", async () => {
    const seen: string[] = [];
    const admission = step({
      safetyChecks: [
        async (m) => (
          seen.push(m.content),
          m.content.includes('forbidden') ? { code: 'POLICY_REFUSED', message: 'not allowed here' } : undefined
        ),
      ],
    });
    await admission.check(message('t-safe'));
    expect(await refusal(admission.check({ ...message('t-safe'), content: 'something forbidden' }))).toEqual({
      code: 'POLICY_REFUSED',
    });
    expect(seen).toEqual(['hi', 'something forbidden']);
  });
});

describe('when Redis is down', () => {
  it('lets messages through instead of refusing service', async () => {
    // No offline queue: commands fail at once, as they do once the shared client gave up retrying.
    const down = new IORedis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    down.on('error', () => undefined); // expected: nothing listens there
    const admission = new ShouldProcess({
      limiter: new RateLimiter(down, logger),
      redis: down,
      logger,
      defaultTurnsPerMinute: 1,
      tiers: { default: { tokensPerDay: 1 } },
      defaultTier: 'default',
    });
    await admission.check(message('t-down'));
    await admission.check(message('t-down'));
    await admission.recordTokens('t-down', 100);
    down.disconnect();
  });
});
