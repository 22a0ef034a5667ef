// The conversation lease against a real Redis: one holder, growing tokens, expiry, flush.
import { createLogger, createRedis, type Redis } from '@platform/service-kit';
import { allocateSuiteRedis } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationLease } from './conversation-lease.js';

let redis: Redis;
const logger = createLogger({ service: 'test', level: 'silent' });

beforeAll(async () => {
  redis = createRedis({ url: await allocateSuiteRedis(), name: 'lease-test', logger });
});
afterAll(() => redis.disconnect());

describe('ConversationLease', () => {
  it('has one holder at a time and issues a higher token with every acquisition', async () => {
    const a = new ConversationLease(redis, 'a', 5_000);
    const b = new ConversationLease(redis, 'b', 5_000);
    const first = await a.acquire('t', 'c1');
    expect(first?.token).toBeGreaterThan(0);
    expect(await b.acquire('t', 'c1')).toBeUndefined();
    expect(await b.acquire('t', 'other')).toBeDefined(); // other conversations are independent
    await first!.release();
    const second = await b.acquire('t', 'c1');
    expect(second!.token).toBeGreaterThan(first!.token);
  });

  it('expires without renewal, and then the old holder can neither renew nor release it', async () => {
    const a = new ConversationLease(redis, 'a', 100);
    const b = new ConversationLease(redis, 'b', 5_000);
    const held = await a.acquire('t', 'c2');
    expect(await held!.renew()).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    const taken = await b.acquire('t', 'c2');
    expect(taken).toBeDefined();
    expect(await held!.renew()).toBe(false);
    await held!.release(); // must not free b's lease
    expect(await a.acquire('t', 'c2')).toBeUndefined();
  });

  it('after a flush, issues tokens above those Postgres has seen once told about them', async () => {
    const a = new ConversationLease(redis, 'a', 5_000);
    const before = await a.acquire('t', 'c3');
    await before!.release();
    await redis.flushdb();
    const afterFlush = await a.acquire('t', 'c3');
    expect(afterFlush!.token).toBeLessThanOrEqual(before!.token);
    await afterFlush!.release();
    await a.raiseTokensAbove('t', 'c3', 41);
    expect((await a.acquire('t', 'c3'))!.token).toBe(42);
  });

  it('keeps tenants apart whose ids join to the same text (acme + eu:support, acme:eu + support)', async () => {
    const a = new ConversationLease(redis, 'a', 5_000);
    const b = new ConversationLease(redis, 'b', 5_000);
    const first = await a.acquire('acme', 'eu:support');
    const second = await b.acquire('acme:eu', 'support');
    expect(second).toBeDefined(); // the other tenant's conversation is not held
    // Each has its own fence counter: both start at 1, and raising one leaves the other alone.
    expect([first!.token, second!.token]).toEqual([1, 1]);
    await first!.release();
    await second!.release();
    await a.raiseTokensAbove('acme', 'eu:support', 9);
    expect((await b.acquire('acme:eu', 'support'))!.token).toBe(2);
    expect((await a.acquire('acme', 'eu:support'))!.token).toBe(10);
  });
});
