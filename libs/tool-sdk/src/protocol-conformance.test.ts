// Conformance of docs/tool-protocol.md: a runner written from the document with only the plain
// NATS client (test-support/raw-runner.ts) must be discovered, called and monitored by the
// platform side exactly like an SDK runner; and the wire rules it follows hold for the SDK too.
import { connect, headers as natsHeaders, type NatsConnection as RawConnection } from '@nats-io/transport-node';
import svcm from '@nats-io/services';
import { createLogger, connectNats, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { schemaHash } from './json-schema.js';
import { serveRunner, type ToolRunner } from './serve-runner.js';
import { startRawRunner, RawToolError, type RawRunner, type RawTool } from './test-support/raw-runner.js';
import type { FlatObjectSchema } from './test-support/raw-validate.js';
import { ToolCatalog } from './tool-catalog.js';
import { ToolClient, type ToolCallInput } from './tool-client.js';
import { ToolFailure } from './tool-failure.js';

const logger = createLogger({ service: 'conformance', level: 'silent' });

const divideSchema: FlatObjectSchema = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
  additionalProperties: false,
};

let divideRuns = 0;
const rawDivide: RawTool = {
  name: 'conf_divide',
  description: 'Divides a by b.',
  inputSchema: divideSchema,
  timeoutMs: 2_000,
  sideEffect: 'idempotent',
  version: '2.1.0',
  run: async (args) => {
    divideRuns++;
    if (args['b'] === 0) throw new RawToolError('division by zero');
    return { quotient: (args['a'] as number) / (args['b'] as number) };
  },
};

const rawCrash: RawTool = {
  name: 'conf_crash',
  description: 'Fails with an internal error.',
  inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
  timeoutMs: 1_000,
  sideEffect: 'none',
  version: '1.0.0',
  run: () => Promise.reject(new Error('connect ECONNREFUSED db-internal.example:5432')),
};

// The same tool served by the SDK, for the wire rules both runners must follow.
const sdkDivide = defineTool({
  name: 'sdk_divide',
  description: 'Divides a by b.',
  input: z.object({ a: z.number(), b: z.number() }),
  handler: async ({ a, b }) => {
    if (b === 0) throw new ToolFailure('division by zero');
    return { quotient: a / b };
  },
});

let server: NatsServerHandle;
let nc: NatsConnection;
let rawNc: RawConnection;
let raw: RawRunner;
let sdk: ToolRunner;
let client: ToolClient;

function input(toolName: string, args: Record<string, unknown>, overrides: Partial<ToolCallInput> = {}): ToolCallInput {
  return {
    toolName,
    arguments: args,
    callId: `call_${Math.random().toString(16).slice(2)}`,
    tenantId: 'acme',
    conversationId: 'conv-42',
    runId: 'run_01',
    deadlineAt: Date.now() + 2_000,
    ...overrides,
  };
}

/** A request sent by hand, so the test controls every header. */
async function rawRequest(subject: string, body: unknown, hdrs: Record<string, string>) {
  const h = natsHeaders();
  for (const [k, v] of Object.entries(hdrs)) h.set(k, v);
  const reply = await nc.request(subject, JSON.stringify(body), { timeout: 2_000, headers: h });
  return {
    json: reply.json<Record<string, unknown>>(),
    code: reply.headers?.get('Nats-Service-Error-Code') ?? '',
    description: reply.headers?.get('Nats-Service-Error') ?? '',
  };
}

function protocolHeaders(deadlineAt: number): Record<string, string> {
  return {
    'Platform-Call-Id': 'call_wire_1',
    'Platform-Tenant': 'acme',
    'Platform-Conversation': 'conv-42',
    'Platform-Deadline': String(deadlineAt),
    'Platform-Protocol': '1',
  };
}

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'conformance-platform', logger });
  rawNc = await connect({ servers: server.url, name: 'conformance-raw-runner' });
  raw = await startRawRunner({ nc: rawNc, name: 'raw-runner', version: '0.3.0', tools: [rawDivide, rawCrash] });
  sdk = await serveRunner({ nc, name: 'sdk-runner', version: '1.0.0', tools: [sdkDivide], logger });
  client = new ToolClient({ nc, logger });
});

afterAll(async () => {
  await raw?.stop();
  await sdk?.stop(100);
  await rawNc?.close();
  await nc?.close();
  await server?.stop();
});

describe('a runner written from the document with the plain NATS client', () => {
  it('is discovered by ToolCatalog with every descriptor field', async () => {
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300 });
    await catalog.refresh();
    expect(catalog.get('conf_divide')).toEqual({
      name: 'conf_divide',
      kind: 'tool',
      description: 'Divides a by b.',
      inputSchema: divideSchema,
      timeoutMs: 2_000,
      requiresApproval: false,
      sideEffect: 'idempotent',
      version: '2.1.0',
      // The document's hashing recipe gives what the SDK computes for the same schema.
      schemaHash: schemaHash(divideSchema as unknown as Record<string, unknown>),
      runner: 'raw-runner',
      instances: [raw.id],
      dedupe: false,
    });
    expect(catalog.list().map((t) => t.name)).toEqual(['conf_crash', 'conf_divide', 'sdk_divide']);
  });

  it('serves ToolClient calls: success, with the protocol headers it documents', async () => {
    const call = input('conf_divide', { a: 5, b: 2 });
    const response = await client.call(call);
    expect(response).toMatchObject({ status: 'success', output: { quotient: 2.5 }, truncated: false });
    expect(response.durationMs).toEqual(expect.any(Number));
    const seen = raw.received.findLast((r) => r.headers['Platform-Call-Id'] === call.callId);
    expect(seen?.headers).toMatchObject({
      'Platform-Tenant': 'acme',
      'Platform-Conversation': 'conv-42',
      'Platform-Run': 'run_01',
      'Platform-Deadline': String(call.deadlineAt),
      'Platform-Protocol': '1',
    });
  });

  it('answers invalid arguments with every issue', async () => {
    const response = await client.call(input('conf_divide', { a: 'five' }));
    expect(response).toMatchObject({ status: 'invalid', error: { code: 'INVALID_ARGUMENTS' } });
    if (response.status === 'success') throw new Error('unreachable');
    expect(response.error.issues?.map((i) => i.path).sort()).toEqual(['a', 'b']);
  });

  it('answers failed: a domain message passes, internals do not', async () => {
    expect(await client.call(input('conf_divide', { a: 1, b: 0 }))).toMatchObject({
      status: 'failed',
      error: { code: 'HANDLER_FAILED', message: 'division by zero' },
    });
    const crash = await client.call(input('conf_crash', {}));
    expect(crash).toMatchObject({ status: 'failed', error: { code: 'HANDLER_FAILED' } });
    expect(JSON.stringify(crash)).not.toContain('db-internal');
  });

  it('is seen by the official NATS services client: ping, info and stats', async () => {
    const svc = new svcm.Svcm(nc).client({ strategy: 'timer', maxWait: 300 });
    const pings = [];
    for await (const p of await svc.ping()) pings.push(p);
    expect(pings).toContainEqual(
      expect.objectContaining({
        type: 'io.nats.micro.v1.ping_response',
        name: 'raw-runner',
        id: raw.id,
        version: '0.3.0',
      }),
    );
    const byId = [];
    for await (const p of await svc.ping('raw-runner', raw.id)) byId.push(p);
    expect(byId).toHaveLength(1);

    const infos = [];
    for await (const info of await svc.info('raw-runner')) infos.push(info);
    expect(infos).toHaveLength(1);
    const endpoint = infos[0]!.endpoints.find((e) => e.name === 'conf_divide');
    expect(endpoint).toMatchObject({
      subject: 'platform.tool.conf_divide',
      queue_group: 'platform-tool-runners',
      metadata: { 'platform.protocol': '1', 'platform.side_effect': 'idempotent' },
    });

    const stats = [];
    for await (const s of await svc.stats('raw-runner', raw.id)) stats.push(s);
    const divideStats = stats[0]!.endpoints?.find((e) => e.name === 'conf_divide');
    expect(divideStats?.num_requests).toBeGreaterThanOrEqual(3);
    expect(divideStats?.num_errors).toBeGreaterThanOrEqual(2);
  });

  it('answers timeout when the deadline has already passed, without running the tool', async () => {
    const [received, runs] = [raw.received.length, divideRuns];
    const reply = await rawRequest(
      'platform.tool.conf_divide',
      { arguments: { a: 1, b: 1 } },
      protocolHeaders(Date.now() - 1_000),
    );
    expect(reply.json).toMatchObject({ status: 'timeout', error: { code: 'DEADLINE_EXCEEDED' } });
    expect(reply.code).toBe('504');
    expect([raw.received.length, divideRuns]).toEqual([received + 1, runs]);
    // The client does not even send a call whose deadline is gone.
    expect(await client.call(input('conf_divide', { a: 1, b: 1 }, { deadlineAt: Date.now() - 1 }))).toMatchObject({
      status: 'timeout',
      error: { code: 'DEADLINE_EXCEEDED' },
    });
    expect(raw.received.length).toBe(received + 1);
  });
});

describe.each([
  ['raw runner', 'platform.tool.conf_divide'],
  ['SDK runner', 'platform.tool.sdk_divide'],
])('wire rules of the document, %s', (_label, subject) => {
  it('success carries no service-error headers', async () => {
    const reply = await rawRequest(subject, { arguments: { a: 6, b: 3 } }, protocolHeaders(Date.now() + 2_000));
    expect(reply).toMatchObject({ json: { status: 'success', output: { quotient: 2 } }, code: '' });
  });

  it('missing protocol headers: invalid INVALID_REQUEST, 400', async () => {
    const reply = await rawRequest(subject, { arguments: { a: 6, b: 3 } }, {});
    expect(reply.json).toMatchObject({ status: 'invalid', error: { code: 'INVALID_REQUEST' } });
    expect(reply.code).toBe('400');
    expect(reply.description).toBe((reply.json['error'] as { message: string }).message);
  });

  it('a body that is not a tool call: invalid INVALID_REQUEST', async () => {
    const reply = await rawRequest(subject, ['not', 'a', 'call'], protocolHeaders(Date.now() + 2_000));
    expect(reply.json).toMatchObject({ status: 'invalid', error: { code: 'INVALID_REQUEST' } });
  });

  it('a passed deadline: timeout DEADLINE_EXCEEDED, 504', async () => {
    const reply = await rawRequest(subject, { arguments: { a: 6, b: 3 } }, protocolHeaders(Date.now() - 5));
    expect(reply).toMatchObject({ json: { status: 'timeout', error: { code: 'DEADLINE_EXCEEDED' } }, code: '504' });
  });

  it('a domain failure: failed HANDLER_FAILED, 500', async () => {
    const reply = await rawRequest(subject, { arguments: { a: 6, b: 0 } }, protocolHeaders(Date.now() + 2_000));
    expect(reply).toMatchObject({
      json: { status: 'failed', error: { code: 'HANDLER_FAILED', message: 'division by zero' } },
      code: '500',
    });
  });
});

describe('an answer whose bytes are not UTF-8', () => {
  it("is still the call's answer, read with U+FFFD, and the repair is reported, never made silently", async () => {
    const subscription = rawNc.subscribe('platform.tool.conf_latin1');
    void (async () => {
      for await (const msg of subscription) {
        // "café" written in Latin-1 by a runner that does not encode its answers as UTF-8.
        msg.respond(
          Buffer.concat([Buffer.from('{"status":"success","output":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
        );
      }
    })();
    // The call goes out on another connection: the server must know of this subscription first,
    // or the call finds no responder (this test failed that way once in CI).
    await rawNc.flush();
    const answer = await client.call({
      toolName: 'conf_latin1',
      arguments: {},
      callId: 'call_latin1',
      tenantId: 'acme',
      conversationId: 'c',
      deadlineAt: Date.now() + 5_000,
    });
    subscription.unsubscribe();
    expect(answer).toMatchObject({ status: 'success', output: 'caf\ufffd' });
    expect(answer.diagnostics).toEqual([expect.stringContaining('not valid UTF-8 (first bad byte at offset 33)')]);
  });
});
