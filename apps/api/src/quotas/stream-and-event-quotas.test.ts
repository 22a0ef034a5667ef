import type { triggerV1 } from '@platform/proto';
import {
  createLogger,
  createRedis,
  GrpcHealthProbe,
  PlaintextTransport,
  RateLimiter,
  type PromiseClient,
  type Redis,
} from '@platform/service-kit';
import { allocateSuiteRedis } from '@platform/testing/vitest';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triggerEdgeApp } from '../test-support/trigger-edge-app.js';
import { RedisEventRate } from './event-rate.js';
import { RedisStreamLeases } from './stream-leases.js';
import { TenantQuotas } from './tenant-quotas.js';

// Issue 34, item 9: one tenant opened 400 SSE streams and posted 150 events of 200 KiB. Open
// streams per tenant are counted across api replicas in Redis (leases a crashed replica stops
// renewing), events per tenant and minute too; past either: 429 QUOTA_EXCEEDED naming the quota.

const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const logger = createLogger({ service: 'api-quota-test', level: 'silent' });
const quotas = new TenantQuotas(
  { default: { concurrentStreams: 2, eventsPerMinute: 3 }, pro: { concurrentStreams: 4 } },
  'default',
);
const trigger = {
  listNotifications: async () => ({ notifications: [] }),
  publishEvent: async (request: triggerV1.PublishEventRequest) => ({
    eventId: request.eventId || 'evt_1',
    firedTaskIds: [],
  }),
} as unknown as PromiseClient<triggerV1.TriggerServiceClient>;
const deadProbe = new GrpcHealthProbe('127.0.0.1:1', new PlaintextTransport(), 'orchestrator');

let redis: Redis;
const replicas: { app: FastifyInstance; url: string; streams: RedisStreamLeases }[] = [];
const open: AbortController[] = [];

async function replica(leaseMs = 30_000): Promise<{ app: FastifyInstance; url: string; streams: RedisStreamLeases }> {
  const streams = new RedisStreamLeases({ redis, quotas, logger, leaseMs });
  const app = triggerEdgeApp(SECRET, trigger, deadProbe, {
    logger,
    quotas: { streams, events: new RedisEventRate(new RateLimiter(redis, logger, 'quota'), quotas) },
    limits: { maxMessageChars: 100, turnWaitMs: 1_000, sseHeartbeatMs: 50, notificationsPollMs: 20 },
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const made = { app, url, streams };
  replicas.push(made);
  return made;
}

const token = (claims: Record<string, string>) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(SECRET));

/** Opens GET /v1/notifications and keeps it open (until the test hangs up); the status and body of a refusal. */
async function openStream(
  url: string,
  bearer: string,
): Promise<{ status: number; body?: unknown; retryAfter?: string | null; close: () => void }> {
  const controller = new AbortController();
  const response = await fetch(`${url}/v1/notifications`, {
    headers: { authorization: `Bearer ${bearer}` },
    signal: controller.signal,
  });
  if (response.status !== 200) return { status: response.status, body: await response.json(), close: () => undefined };
  open.push(controller);
  return { status: 200, close: () => controller.abort() };
}

/** Waits until `probe` holds (a stream closing is seen by the server a moment after the client hangs up). */
async function eventually(probe: () => Promise<boolean>, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not reached');
}

beforeAll(async () => {
  redis = createRedis({ url: await allocateSuiteRedis(), name: 'api-quota-test', logger });
});
afterAll(async () => {
  for (const controller of open) controller.abort();
  for (const r of replicas) {
    r.streams.stop();
    await r.app.close();
  }
  redis.disconnect();
  deadProbe.close();
});

describe('the concurrent_streams quota', () => {
  it("counts one tenant's streams across two replicas and refuses the one past its tier's quota with 429 QUOTA_EXCEEDED", async () => {
    const [a, b] = [await replica(), await replica()];
    const acme = await token({ tenant: 'streams-acme' });
    const first = await openStream(a.url, acme);
    const second = await openStream(b.url, acme);
    expect([first.status, second.status]).toEqual([200, 200]);
    const refused = await openStream(a.url, acme);
    expect(refused).toMatchObject({
      status: 429,
      body: {
        error: {
          code: 'QUOTA_EXCEEDED',
          message: expect.stringContaining('2 event streams open'),
          details: { quota: 'concurrent_streams', limit: 2, tier: 'default' },
        },
      },
    });
    expect((await openStream(b.url, acme)).status).toBe(429);
    // Another tenant has its own count; a larger tier of the same tenant has a larger quota.
    expect((await openStream(a.url, await token({ tenant: 'streams-globex' }))).status).toBe(200);
    const pro = await openStream(a.url, await token({ tenant: 'streams-acme', tier: 'pro' }));
    expect(pro.status).toBe(200);
    // Closing streams gives their places back.
    first.close();
    pro.close();
    await eventually(async () => {
      const again = await openStream(b.url, acme);
      return again.status === 200;
    });
  });

  it("stops counting a crashed replica's streams once their leases end, and keeps counting a live replica's", async () => {
    const live = await replica(600);
    const crashing = await replica(600);
    const tenant = await token({ tenant: 'streams-crash' });
    expect((await openStream(live.url, tenant)).status).toBe(200);
    expect((await openStream(crashing.url, tenant)).status).toBe(200);
    // The crashing replica stops renewing (its process is gone) without closing anything.
    crashing.streams.stop();
    expect((await openStream(live.url, tenant)).status).toBe(429);
    // Several lease lengths later the live replica's stream still counts: it was renewed.
    await new Promise((r) => setTimeout(r, 2_000));
    await eventually(async () => (await openStream(live.url, tenant)).status === 200);
    expect((await openStream(live.url, tenant)).status).toBe(429);
  });
});

describe('the events_per_minute quota', () => {
  it("refuses the event past the tier's rate with 429 QUOTA_EXCEEDED and retry-after, per tenant, across replicas", async () => {
    const [a, b] = [replicas[0] ?? (await replica()), replicas[1] ?? (await replica())];
    const post = async (url: string, bearer: string) => {
      const response = await fetch(`${url}/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ source: 'gmail', type: 'message_received', data: { x: 1 } }),
      });
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
    };
    const acme = await token({ tenant: 'events-acme' });
    const statuses = [await post(a.url, acme), await post(b.url, acme), await post(a.url, acme)].map((r) => r.status);
    expect(statuses).toEqual([202, 202, 202]);
    const refused = await post(b.url, acme);
    expect(refused).toMatchObject({
      status: 429,
      body: { error: { code: 'QUOTA_EXCEEDED', details: { quota: 'events_per_minute', limit: 3, tier: 'default' } } },
    });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await post(a.url, await token({ tenant: 'events-globex' }))).status).toBe(202);
  });
});
