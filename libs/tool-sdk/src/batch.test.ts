// Batched calls (docs/tool-protocol.md, "Batched calls"): many calls of one tool for one tenant
// in one request, each handled as if it had come alone, on a real nats-server (and Redis for the
// effectively-once case).
import { headers as natsHeaders } from '@nats-io/nats-core';
import { toolBatchSubject, ToolBatchReply, type ToolBatchCall } from '@platform/contracts';
import { connectNats, createLogger, createRedis, type NatsConnection, type Redis } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { allocateSuiteRedis } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { serveRunner, type ToolRunner } from './serve-runner.js';
import { ToolClient } from './tool-client.js';

const logger = createLogger({ service: 'batch-test', level: 'silent' });

/** What each handler saw, per tool: call id, tenant, conversation, run. */
const seen = new Map<
  string,
  { callId: string; tenantId: string; conversationId: string; runId: string | undefined }[]
>();
function record(
  tool: string,
  ctx: { callId: string; tenantId: string; conversationId: string; runId?: string | undefined },
): void {
  seen.set(tool, [
    ...(seen.get(tool) ?? []),
    { callId: ctx.callId, tenantId: ctx.tenantId, conversationId: ctx.conversationId, runId: ctx.runId },
  ]);
}

const double = defineTool({
  name: 'double',
  description: 'Doubles a number.',
  input: z.object({ n: z.number() }),
  handler: async ({ n }, ctx) => {
    record('double', ctx);
    return { doubled: n * 2 };
  },
});

let release: (() => void) | undefined;
const held = defineTool({
  name: 'held',
  description: 'Waits until the test releases it.',
  input: z.object({}),
  timeoutMs: 5_000,
  handler: (_input, ctx) =>
    new Promise((resolve) => {
      record('held', ctx);
      const previous = release;
      release = () => {
        previous?.();
        resolve('released');
      };
    }),
});

let charges = 0;
const charge = defineTool({
  name: 'charge',
  description: 'Charges once per call id (test side effect).',
  input: z.object({ amount: z.number() }),
  sideEffect: 'external',
  handler: async ({ amount }) => ({ charged: amount, charge: ++charges }),
});

let server: NatsServerHandle;
let nc: NatsConnection;
let redis: Redis;
let client: ToolClient;
const runners: ToolRunner[] = [];

function calls(n: number, args: (i: number) => Record<string, unknown>, deadlineMs = 3_000): ToolBatchCall[] {
  return Array.from({ length: n }, (_, i) => ({
    callId: `call-${Math.random().toString(16).slice(2)}-${i}`,
    tenantId: ['acme', 'globex', 'initech'][i % 3]!,
    conversationId: `conv-${i}`,
    deadlineAt: Date.now() + deadlineMs,
    arguments: args(i),
  }));
}

async function answers(toolName: string, batch: ToolBatchCall[]) {
  const outcome = await client.callBatch({ toolName, calls: batch });
  if (outcome.status !== 'answered') throw new Error(`expected answers, got ${outcome.status}`);
  return outcome.answers;
}

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'batch-caller', logger });
  redis = createRedis({ url: await allocateSuiteRedis(), name: 'batch-test', logger });
  client = new ToolClient({ nc, logger });
  const own = await connectNats({ servers: server.url, name: 'batch-runner', logger });
  runners.push(
    await serveRunner({
      nc: own,
      logger,
      name: 'batcher',
      version: '1.0.0',
      tools: [double, held, charge],
      maxConcurrency: 4,
      idempotency: { redis, ttlSeconds: 60 },
    }),
  );
});

afterAll(async () => {
  release?.();
  for (const runner of runners) await runner.stop(100);
  await nc?.close();
  redis?.disconnect();
  await server?.stop();
});

describe('a batch of calls', () => {
  it('runs every call on its own, for its own tenant, and answers each in order, a bad one with its own invalid', async () => {
    const batch = calls(3, (i) => (i === 1 ? { n: 'two' } : { n: i + 1 }));
    batch[2] = { ...batch[2]!, runId: 'run-7' };
    const result = await answers('double', batch);
    expect(result.map((a) => a.status)).toEqual(['success', 'invalid', 'success']);
    expect(result[0]).toMatchObject({ output: { doubled: 2 } });
    expect(result[1]).toMatchObject({ error: { code: 'INVALID_ARGUMENTS', issues: [{ path: 'n' }] } });
    expect(result[2]).toMatchObject({ output: { doubled: 6 } });
    const handled = seen.get('double')!.filter((s) => batch.some((c) => c.callId === s.callId));
    expect(handled).toEqual([
      { callId: batch[0]!.callId, tenantId: 'acme', conversationId: 'conv-0', runId: undefined },
      { callId: batch[2].callId, tenantId: 'initech', conversationId: 'conv-2', runId: 'run-7' },
    ]);
  });

  it('answers a call already past its deadline with timeout and still runs the others', async () => {
    const batch = calls(2, () => ({ n: 1 }));
    batch[0] = { ...batch[0]!, deadlineAt: Date.now() - 1 };
    const result = await answers('double', batch);
    expect(result.map((a) => a.status)).toEqual(['timeout', 'success']);
  });

  it('answers the calls past the runner’s free slots busy, one by one, without running them', async () => {
    const first = answers(
      'held',
      calls(3, () => ({})),
    );
    await expect.poll(() => runners[0]!.inFlight).toBe(3);
    const second = answers(
      'held',
      calls(3, () => ({})),
    );
    const overflow = await Promise.race([second, new Promise<'running'>((r) => setTimeout(() => r('running'), 300))]);
    expect(runners[0]!.inFlight).toBe(4);
    expect(overflow).toBe('running');
    release!();
    expect((await first).map((a) => a.status)).toEqual(['success', 'success', 'success']);
    const statuses = (await second).map((a) => a.status);
    expect(statuses).toEqual(['success', 'busy', 'busy']);
    expect(runners[0]!.inFlight).toBe(0);
  });

  it('runs an external call once per call id across a batch and a retried single call', async () => {
    const batch = calls(2, (i) => ({ amount: 10 + i }));
    const before = charges;
    const first = await answers('charge', batch);
    const again = await client.call({
      toolName: 'charge',
      callId: batch[1]!.callId,
      tenantId: batch[1]!.tenantId,
      conversationId: 'conv-1',
      arguments: { amount: 11 },
      deadlineAt: Date.now() + 3_000,
    });
    expect(charges - before).toBe(2);
    expect(again).toEqual(first[1]);
  });

  it('is refused whole, running nothing, when a call lacks its tenant, the body is not JSON or it holds too many calls', async () => {
    const before = seen.get('double')?.length ?? 0;
    const { tenantId: _dropped, ...noTenant } = calls(1, () => ({ n: 1 }))[0]!;
    const refusals = await Promise.all(
      [
        JSON.stringify({ calls: [...calls(1, () => ({ n: 1 })), noTenant] }),
        'not json',
        JSON.stringify({ calls: calls(257, () => ({ n: 1 })) }),
      ].map(async (body) =>
        ToolBatchReply.parse(
          (await nc.request(toolBatchSubject('double'), body, { timeout: 2_000, headers: natsHeaders() })).json(),
        ),
      ),
    );
    expect(refusals[0]).toMatchObject({
      refused: { status: 'invalid', error: { code: 'INVALID_REQUEST', issues: [{ path: 'calls.1.tenantId' }] } },
    });
    expect(refusals[1]).toMatchObject({
      refused: { status: 'invalid', error: { code: 'INVALID_REQUEST', issues: [{ path: '(body)' }] } },
    });
    expect(refusals[2]).toMatchObject({ refused: { status: 'invalid', error: { issues: [{ path: 'calls' }] } } });
    expect(seen.get('double')?.length ?? 0).toBe(before);
  });

  it('says unsupported when no runner serves the tool’s batches', async () => {
    expect(await client.callBatch({ toolName: 'nobody_serves_this', calls: calls(2, () => ({})) })).toEqual({
      status: 'unsupported',
    });
  });

  it('gives every call a timeout when the whole batch goes unanswered', async () => {
    const silent = nc.subscribe(toolBatchSubject('silent_tool'));
    const result = await answers(
      'silent_tool',
      calls(2, () => ({}), 200),
    );
    silent.unsubscribe();
    expect(result.map((a) => [a.status, a.status === 'success' ? '' : a.error.code])).toEqual([
      ['timeout', 'DEADLINE_EXCEEDED'],
      ['timeout', 'DEADLINE_EXCEEDED'],
    ]);
  });

  it('reads a reply with bytes that are not UTF-8 with U+FFFD and says so on each answer', async () => {
    const body = Buffer.concat([
      Buffer.from('{"results":[{"response":{"status":"success","output":"caf'),
      Buffer.from([0xff]),
      Buffer.from('"}}]}'),
    ]);
    const mangler = nc.subscribe(toolBatchSubject('mangling_tool'), {
      callback: (_err, msg) => void msg.respond(body),
    });
    const [answer] = await answers(
      'mangling_tool',
      calls(1, () => ({})),
    );
    mangler.unsubscribe();
    expect(answer).toMatchObject({ status: 'success', output: 'caf\uFFFD' });
    expect(answer!.diagnostics?.[0]).toMatch(/not valid UTF-8 \(first bad byte at offset \d+\)/);
  });

  it('reads a reply that breaks the protocol as a failed call for each, never as success', async () => {
    const liar = nc.subscribe(toolBatchSubject('liar_tool'), {
      callback: (_err, msg) =>
        void msg.respond(JSON.stringify({ results: [{ response: { status: 'success', output: 1 } }] })),
    });
    const result = await answers(
      'liar_tool',
      calls(2, () => ({})),
    );
    liar.unsubscribe();
    expect(result.map((a) => [a.status, a.status === 'success' ? '' : a.error.code])).toEqual([
      ['failed', 'TRANSPORT_FAILED'],
      ['failed', 'TRANSPORT_FAILED'],
    ]);
  });
});
