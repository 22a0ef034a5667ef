import svcm from '@nats-io/services';
import { createLogger, connectNats, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { serveRunner, type ToolRunner } from './serve-runner.js';
import { ToolCatalog } from './tool-catalog.js';
import { ToolClient, type ToolCallInput } from './tool-client.js';
import { ToolFailure } from './tool-failure.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let server: NatsServerHandle;
let nc: NatsConnection;
let client: ToolClient;
const runners: ToolRunner[] = [];

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  output: z.object({ sum: z.number() }),
  handler: async ({ a, b }) => ({ sum: a + b }),
});

let releaseSlow: (() => void) | undefined;
const slow = defineTool({
  name: 'slow',
  description: 'Waits until released or aborted.',
  input: z.object({}),
  timeoutMs: 5_000,
  handler: (_input, ctx) =>
    new Promise((resolve, reject) => {
      releaseSlow = () => resolve('released');
      ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
    }),
});

const broken = defineTool({
  name: 'broken',
  description: 'Always fails.',
  input: z.object({ kind: z.enum(['bug', 'domain']) }),
  handler: async ({ kind }) => {
    if (kind === 'domain') throw new ToolFailure('division by zero');
    throw new Error('connection to db-internal.example:5432 refused');
  },
});

const big = defineTool({
  name: 'big',
  description: 'Returns a large text.',
  input: z.object({ lines: z.number().int() }),
  handler: async ({ lines }) => Array.from({ length: lines }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n'),
});

function call(
  toolName: string,
  args: Record<string, unknown>,
  overrides: Partial<ToolCallInput> = {},
): Promise<ReturnType<ToolClient['call']> extends Promise<infer R> ? R : never> {
  return client.call({
    toolName,
    arguments: args,
    callId: `call-${Math.random().toString(16).slice(2)}`,
    tenantId: 'acme',
    conversationId: 'conv-1',
    deadlineAt: Date.now() + 2_000,
    ...overrides,
  });
}

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'test', logger });
  client = new ToolClient({ nc, logger, busyRetryDelayMs: 1 });
  runners.push(
    await serveRunner({
      nc,
      name: 'test-runner',
      version: '1.0.0',
      tools: [add, slow, broken, big],
      logger,
      maxResultBytes: 1_000,
    }),
  );
});

afterEach(() => {
  releaseSlow?.();
  releaseSlow = undefined;
});

afterAll(async () => {
  for (const runner of runners) await runner.stop(100);
  await nc.close();
  await server.stop();
});

describe('serveRunner + ToolClient', () => {
  it('runs a tool and returns its validated output', async () => {
    expect(await call('add', { a: 2, b: 3 })).toMatchObject({ status: 'success', output: { sum: 5 } });
  });

  it('answers schema violations with invalid and lists the problems', async () => {
    const response = await call('add', { a: 'two' });
    expect(response.status).toBe('invalid');
    if (response.status === 'success') throw new Error('unreachable');
    expect(response.error.code).toBe('INVALID_ARGUMENTS');
    expect(response.error.issues?.map((i) => i.path).sort()).toEqual(['a', 'b']);
  });

  it('hides handler internals behind a safe message', async () => {
    const response = await call('broken', { kind: 'bug' });
    expect(response).toMatchObject({ status: 'failed', error: { code: 'HANDLER_FAILED' } });
    expect(JSON.stringify(response)).not.toContain('db-internal');
  });

  it('passes a ToolFailure message through to the model', async () => {
    expect(await call('broken', { kind: 'domain' })).toMatchObject({
      status: 'failed',
      error: { message: 'division by zero' },
    });
  });

  it('times out at the caller deadline', async () => {
    const response = await call('slow', {}, { deadlineAt: Date.now() + 150 });
    expect(response.status).toBe('timeout');
  });

  it('reports a missing runner at once instead of waiting for the deadline', async () => {
    // The deadline lies past the test's own timeout: a client that waited for it fails the test.
    const response = await call('nobody_serves_this', {}, { deadlineAt: Date.now() + 120_000 });
    expect(response).toMatchObject({ status: 'failed', error: { code: 'RUNNER_UNAVAILABLE' } });
  });

  it('truncates oversized results at the source', async () => {
    const response = await call('big', { lines: 200 });
    expect(response).toMatchObject({ status: 'success', truncated: true });
    if (response.status !== 'success') throw new Error('unreachable');
    expect(Buffer.byteLength(String(response.output))).toBeLessThanOrEqual(1_000);
    expect(String(response.output)).toContain('[...truncated');
  });

  it('rejects calls without protocol headers', async () => {
    const reply = await nc.request('platform.tool.add', JSON.stringify({ arguments: { a: 1, b: 2 } }), {
      timeout: 1_000,
    });
    expect(reply.json()).toMatchObject({ status: 'invalid', error: { code: 'INVALID_REQUEST' } });
  });
});

describe('discovery', () => {
  it('is visible to the official NATS services client with tool metadata', async () => {
    const infos = [];
    for await (const info of await new svcm.Svcm(nc).client({ strategy: 'timer', maxWait: 300 }).info('test-runner'))
      infos.push(info);
    expect(infos).toHaveLength(1);
    const endpoint = infos[0]!.endpoints.find((e) => e.name === 'add');
    expect(endpoint).toMatchObject({ subject: 'platform.tool.add', queue_group: 'platform-tool-runners' });
    expect(JSON.parse(endpoint!.metadata!['platform.input_schema']!)).toMatchObject({
      type: 'object',
      required: ['a', 'b'],
    });
  });

  it('builds a catalog of the tools runners offer', async () => {
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300 });
    await catalog.refresh();
    expect(catalog.list().map((t) => t.name)).toEqual(['add', 'big', 'broken', 'slow']);
    expect(catalog.get('add')).toMatchObject({
      runner: 'test-runner',
      kind: 'tool',
      timeoutMs: 30_000,
      sideEffect: 'none',
    });
  });
});

describe('discovery after a change', () => {
  it('answers a refresh asked for during a round with a newer round: a runner replaced meanwhile is seen replaced', async () => {
    const nc2 = await connectNats({ servers: server.url, name: 'versions', logger });
    const tool = (version: string) =>
      defineTool({
        name: 'versioned',
        description: 'Has versions.',
        version,
        input: z.object({}),
        handler: async () => version,
      });
    const old = await serveRunner({
      nc: nc2,
      name: 'versioned-runner',
      version: '1.0.0',
      tools: [tool('1.0.0')],
      logger,
    });
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300, staleAfterMs: 0 });
    // A round starts while the old runner serves; the runner is replaced before it ends.
    const round = catalog.refresh();
    await new Promise((r) => setTimeout(r, 50));
    await old.stop(0);
    const replacement = await serveRunner({
      nc: nc2,
      name: 'versioned-runner',
      version: '2.0.0',
      tools: [tool('2.0.0')],
      logger,
    });
    await catalog.refresh();
    expect(catalog.get('versioned')?.version).toBe('2.0.0');
    await round;
    await replacement.stop(0);
    await nc2.close();
  });
});

describe('busy runners and draining', () => {
  it('answers busy past the concurrency limit and the client gives up with a failure', async () => {
    const nc2 = await connectNats({ servers: server.url, name: 'busy', logger });
    const tiny = defineTool({
      name: 'tiny_slow',
      description: 'Holds its only slot.',
      input: z.object({}),
      handler: (_i, ctx) =>
        new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))),
    });
    const runner = await serveRunner({
      nc: nc2,
      name: 'tiny',
      version: '1.0.0',
      tools: [tiny],
      logger,
      maxConcurrency: 1,
    });
    const first = call('tiny_slow', {}, { deadlineAt: Date.now() + 3_000 });
    await new Promise((r) => setTimeout(r, 100));
    const second = await call('tiny_slow', {});
    expect(second).toMatchObject({ status: 'failed', error: { code: 'RUNNER_BUSY' } });
    await runner.stop(50);
    expect((await first).status).toBe('timeout');
    await nc2.close();
  });

  it('lets in-flight calls finish when stopped within the grace period', async () => {
    const nc2 = await connectNats({ servers: server.url, name: 'drain', logger });
    let release: (() => void) | undefined;
    const held = defineTool({
      name: 'held',
      description: 'Finishes when released.',
      input: z.object({}),
      handler: () => new Promise((r) => (release = () => r('done'))),
    });
    const runner = await serveRunner({ nc: nc2, name: 'drainer', version: '1.0.0', tools: [held], logger });
    const pending = call('held', {}, { deadlineAt: Date.now() + 3_000 });
    await new Promise((r) => setTimeout(r, 100));
    const stopping = runner.stop(2_000);
    setTimeout(() => release?.(), 50);
    await stopping;
    expect(await pending).toMatchObject({ status: 'success', output: 'done' });
    await nc2.close();
  });
});

describe('catalog when a runner leaves', () => {
  it('remembers a departed tool as offline, and forgets it later', async () => {
    const nc2 = await connectNats({ servers: server.url, name: 'leaver', logger });
    const echo = defineTool({
      name: 'echo_once',
      description: 'Echoes.',
      input: z.object({}),
      handler: async () => 'hi',
    });
    const runner = await serveRunner({ nc: nc2, name: 'leaver', version: '1.0.0', tools: [echo], logger });
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300, rememberOfflineMs: 60_000, staleAfterMs: 0 });
    await catalog.refresh();
    expect(catalog.lookup('echo_once').state).toBe('online');
    await runner.stop(10);
    await nc2.close();
    await catalog.refresh();
    expect(catalog.lookup('echo_once').state).toBe('offline');
    expect(catalog.list().map((t) => t.name)).not.toContain('echo_once');
    expect(catalog.lookup('never_existed').state).toBe('unknown');
  });
});

describe('catalog when a runner misses a discovery round', () => {
  it('keeps its tools listed for the stale period instead of dropping them at once', async () => {
    const nc2 = await connectNats({ servers: server.url, name: 'quiet', logger });
    const ping = defineTool({
      name: 'ping_quiet',
      description: 'Pings.',
      input: z.object({}),
      handler: async () => 'pong',
    });
    const runner = await serveRunner({ nc: nc2, name: 'quiet', version: '1.0.0', tools: [ping], logger });
    const patient = new ToolCatalog({ nc, logger, discoveryWaitMs: 300, staleAfterMs: 60_000 });
    const strict = new ToolCatalog({ nc, logger, discoveryWaitMs: 300, staleAfterMs: 0 });
    await Promise.all([patient.refresh(), strict.refresh()]);
    // The runner stops answering discovery (as a runner too busy to answer in time would).
    await runner.stop(10);
    await nc2.close();
    await Promise.all([patient.refresh(), strict.refresh()]);
    expect(patient.lookup('ping_quiet').state).toBe('online');
    expect(strict.lookup('ping_quiet').state).toBe('offline');
  });
});
