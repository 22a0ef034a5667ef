// Effectively-once for `external` tools: a duplicate call (same call id) is answered from Redis
// instead of running the handler again, sequentially, concurrently and across replicas; and the
// runner keeps serving when Redis is gone.
import svcm from '@nats-io/services';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { parseToolDescriptor, type ToolCallResponse } from '@platform/contracts';
import { connectNats, createLogger, createRedis, type NatsConnection, type Redis } from '@platform/service-kit';
import { freePort, startNatsServer, type NatsServerHandle } from '@platform/testing';
import { allocateSuiteRedis } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEDUPE_METADATA_KEY, readDedupeMetadata, REPLAYED_HEADER } from './dedupe-protocol.js';
import { defineTool, type ToolDefinition } from './define-tool.js';
import { serveRunner, type RunnerOptions, type ToolRunner } from './serve-runner.js';
import { ToolCatalog } from './tool-catalog.js';
import { ToolClient } from './tool-client.js';

const logger = createLogger({ service: 'dedupe-test', level: 'silent' });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Side effects per tool name: what must happen once per call. */
const effects = new Map<string, number>();

/** An `external` tool that "charges" after holding for `holdMs`, counting each charge. */
function chargeTool(name: string): ToolDefinition {
  return defineTool({
    name,
    description: 'Charges an amount (test side effect).',
    input: z.object({ amount: z.number(), holdMs: z.number().int().default(0) }),
    sideEffect: 'external',
    timeoutMs: 5_000,
    handler: async ({ amount, holdMs }) => {
      if (holdMs > 0) await sleep(holdMs);
      const n = (effects.get(name) ?? 0) + 1;
      effects.set(name, n);
      return { charged: amount, charge: n };
    },
  });
}

const lookup = defineTool({
  name: 'lookup',
  description: 'Reads something (no side effect).',
  input: z.object({}),
  handler: async () => {
    effects.set('lookup', (effects.get('lookup') ?? 0) + 1);
    return 'ok';
  },
});

let server: NatsServerHandle;
let nc: NatsConnection;
let redis: Redis;
const connections: NatsConnection[] = [];
const runners: ToolRunner[] = [];
const clients: Redis[] = [];

async function start(options: Omit<RunnerOptions, 'nc' | 'logger' | 'version'>): Promise<ToolRunner> {
  const own = await connectNats({ servers: server.url, name: options.name, logger });
  connections.push(own);
  const runner = await serveRunner({ nc: own, logger, version: '1.0.0', ...options });
  runners.push(runner);
  return runner;
}

interface Sent {
  response: ToolCallResponse;
  replayed: boolean;
}

/** Sends one call by hand, so the test sees the reply headers; the call id is what dedupe keys on. */
async function send(
  tool: string,
  callId: string,
  args: Record<string, unknown>,
  options: { deadlineMs?: number; tenant?: string } = {},
): Promise<Sent> {
  const h = natsHeaders();
  h.set('Platform-Call-Id', callId);
  h.set('Platform-Tenant', options.tenant ?? 'acme');
  h.set('Platform-Conversation', 'conv-1');
  h.set('Platform-Deadline', String(Date.now() + (options.deadlineMs ?? 3_000)));
  h.set('Platform-Protocol', '1');
  const reply = await nc.request(`platform.tool.${tool}`, JSON.stringify({ arguments: args }), {
    timeout: (options.deadlineMs ?? 3_000) + 1_000,
    headers: h,
  });
  return { response: reply.json<ToolCallResponse>(), replayed: reply.headers?.get(REPLAYED_HEADER) === 'true' };
}

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'dedupe-caller', logger });
  redis = createRedis({ url: await allocateSuiteRedis(), name: 'dedupe-test', logger });
  clients.push(redis);
  await start({ name: 'payments', tools: [chargeTool('charge'), lookup], idempotency: { redis, ttlSeconds: 60 } });
});

afterAll(async () => {
  for (const runner of runners) await runner.stop(100);
  for (const c of connections) await c.close();
  await nc?.close();
  for (const c of clients) c.disconnect();
  await server?.stop();
});

describe('discovery', () => {
  it('publishes platform.dedupe on external tools only, and the catalog still accepts the endpoint', async () => {
    const infos = [];
    for await (const info of await new svcm.Svcm(nc).client({ strategy: 'timer', maxWait: 300 }).info('payments'))
      infos.push(info);
    const endpoints = infos[0]!.endpoints;
    const charge = endpoints.find((e) => e.name === 'charge')!;
    expect(charge.metadata?.[DEDUPE_METADATA_KEY]).toBe('true');
    expect(readDedupeMetadata(charge.metadata)).toBe(true);
    expect(readDedupeMetadata(endpoints.find((e) => e.name === 'lookup')!.metadata)).toBe(false);
    // The contracts schema ignores the extra key: older platforms keep discovering the tool.
    expect(parseToolDescriptor('charge', charge.metadata)).toMatchObject({ name: 'charge', sideEffect: 'external' });
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300 });
    await catalog.refresh();
    expect(catalog.get('charge')).toMatchObject({ sideEffect: 'external', runner: 'payments' });
  });
});

describe('an external tool with a result store', () => {
  it('runs once when the same call id arrives twice in a row, and replays the result', async () => {
    const before = effects.get('charge') ?? 0;
    const first = await send('charge', 'call_seq', { amount: 10 });
    const second = await send('charge', 'call_seq', { amount: 10 });
    expect(effects.get('charge')).toBe(before + 1);
    expect(first).toMatchObject({
      replayed: false,
      response: { status: 'success', output: { charged: 10, charge: before + 1 } },
    });
    expect(second).toEqual({ replayed: true, response: first.response });
  });

  it('runs once when the same call id arrives twice at the same time', async () => {
    const before = effects.get('charge') ?? 0;
    const [a, b] = await Promise.all([
      send('charge', 'call_par', { amount: 5, holdMs: 300 }),
      send('charge', 'call_par', { amount: 5, holdMs: 300 }),
    ]);
    expect(effects.get('charge')).toBe(before + 1);
    expect(a.response).toEqual(b.response);
    expect([a.replayed, b.replayed].sort()).toEqual([false, true]);
  });

  it('runs once across replicas sharing the store', async () => {
    const client = new ToolClient({ nc, logger });
    await start({ name: 'payments', tools: [chargeTool('charge'), lookup], idempotency: { redis, ttlSeconds: 60 } });
    const before = effects.get('charge') ?? 0;
    const call = {
      toolName: 'charge',
      arguments: { amount: 7, holdMs: 200 },
      callId: 'call_replicas',
      tenantId: 'acme',
      conversationId: 'conv-1',
      deadlineAt: Date.now() + 3_000,
    };
    const responses = await Promise.all(Array.from({ length: 6 }, () => client.call(call)));
    expect(effects.get('charge')).toBe(before + 1);
    for (const r of responses) expect(r).toEqual(responses[0]);
  });

  it('runs each of two different call ids', async () => {
    const before = effects.get('charge') ?? 0;
    await Promise.all([send('charge', 'call_one', { amount: 1 }), send('charge', 'call_two', { amount: 1 })]);
    expect(effects.get('charge')).toBe(before + 2);
  });

  it('treats a reused call id with other arguments, or from another tenant, as a different call', async () => {
    const before = effects.get('charge') ?? 0;
    await send('charge', 'call_reused', { amount: 1 });
    const otherArgs = await send('charge', 'call_reused', { amount: 2 });
    const otherTenant = await send('charge', 'call_reused', { amount: 1 }, { tenant: 'globex' });
    expect(effects.get('charge')).toBe(before + 3);
    expect([otherArgs.replayed, otherTenant.replayed]).toEqual([false, false]);
  });

  it('lets a waiting duplicate give up at its own deadline without running the tool', async () => {
    const before = effects.get('charge') ?? 0;
    const first = send('charge', 'call_slow', { amount: 3, holdMs: 800 });
    await sleep(100);
    const impatient = await send('charge', 'call_slow', { amount: 3, holdMs: 800 }, { deadlineMs: 300 });
    expect(impatient.response).toMatchObject({ status: 'timeout', error: { code: 'DEADLINE_EXCEEDED' } });
    expect((await first).response.status).toBe('success');
    expect(effects.get('charge')).toBe(before + 1);
  });

  it('does not dedupe tools that are not external', async () => {
    const before = effects.get('lookup') ?? 0;
    await send('lookup', 'call_read', {});
    const again = await send('lookup', 'call_read', {});
    expect(effects.get('lookup')).toBe(before + 2);
    expect(again.replayed).toBe(false);
  });

  it('runs the call again once the stored result has expired', async () => {
    await start({ name: 'short-memory', tools: [chargeTool('charge_ttl')], idempotency: { redis, ttlSeconds: 0.5 } });
    await send('charge_ttl', 'call_ttl', { amount: 1 });
    expect((await send('charge_ttl', 'call_ttl', { amount: 1 })).replayed).toBe(true);
    expect(effects.get('charge_ttl')).toBe(1);
    await sleep(700);
    expect((await send('charge_ttl', 'call_ttl', { amount: 1 })).replayed).toBe(false);
    expect(effects.get('charge_ttl')).toBe(2);
  });
});

describe('without Redis', () => {
  it('still serves, degrading to at-least-once', async () => {
    const dead = createRedis({ url: `redis://127.0.0.1:${await freePort()}`, name: 'dead', logger });
    clients.push(dead);
    await start({
      name: 'no-store',
      tools: [chargeTool('charge_nostore')],
      idempotency: { redis: dead, commandTimeoutMs: 200 },
    });
    const first = await send('charge_nostore', 'call_down', { amount: 1 });
    const second = await send('charge_nostore', 'call_down', { amount: 1 });
    expect(first.response).toMatchObject({ status: 'success', output: { charged: 1 } });
    expect(second.response).toMatchObject({ status: 'success' });
    expect(effects.get('charge_nostore')).toBe(2);
  });
});
