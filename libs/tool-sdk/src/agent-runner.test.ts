// An agent-tool served by serveRunner over a real NATS (and Redis for dedupe): discovery, the whole
// start -> input -> approval flow through ToolClient, effectively-once steps, and protocol errors.
import { headers as natsHeaders } from '@nats-io/nats-core';
import type { AgentStepInput, AgentStepOutput, ToolCallResponse } from '@platform/contracts';
import { connectNats, createLogger, createRedis, type NatsConnection, type Redis } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { allocateSuiteRedis } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readAgentStepOutput } from './agent-client.js';
import { EXPOSE_METADATA_KEY } from './agent-metadata.js';
import { APPROVAL_NOTE } from './agent-schema.js';
import { REPLAYED_HEADER } from './dedupe-protocol.js';
import { defineAgentTool } from './define-agent-tool.js';
import { defineTool } from './define-tool.js';
import { serveRunner, type ToolRunner } from './serve-runner.js';
import { ToolCatalog } from './tool-catalog.js';
import { ToolClient } from './tool-client.js';
import { ToolFailure } from './tool-failure.js';

const logger = createLogger({ service: 'agent-runner-test', level: 'silent' });
let server: NatsServerHandle;
let nc: NatsConnection;
let redis: Redis;
let client: ToolClient;
let runner: ToolRunner;

/** Bookings made: the side effect that must happen once per approved action. */
const bookings: { restaurant: string; people: number; instruction: string | undefined }[] = [];

const bookTable = defineAgentTool({
  name: 'book_table',
  description: 'Books a restaurant table.',
  fields: {
    restaurant: { schema: z.string().min(1), description: 'Restaurant name' },
    people: {
      schema: z.number().int().positive(),
      description: 'Party size',
      validate: (n) => (n <= 12 ? undefined : 'parties over 12 must call the restaurant'),
      constraint: 'at most 12',
    },
    time: { schema: z.string(), description: 'Time, e.g. 19:30', default: '19:00' },
  },
  approval: (f) => ({ actionSummary: `Book ${f.restaurant} for ${f.people} at ${f.time}` }),
  run: async (f, ctx) => {
    if (f.restaurant === 'Closed') throw new ToolFailure('that restaurant is closed today');
    bookings.push({ restaurant: f.restaurant, people: f.people, instruction: ctx.taskInstruction });
    return { booking: `B-${bookings.length}` };
  },
});

const hidden = defineAgentTool({
  name: 'hidden_agent',
  description: 'Only for workflows.',
  fields: {},
  exposeToModel: false,
  run: async () => 'ok',
});
const verbose = defineAgentTool({
  name: 'verbose_agent',
  description: 'Returns a lot.',
  fields: {},
  run: async () => 'x'.repeat(5_000),
});
const echo = defineTool({
  name: 'echo_tool',
  description: 'Echoes.',
  input: z.object({ text: z.string() }),
  handler: async ({ text }) => text,
});

function step(callId: string, args: Record<string, unknown>, agent?: AgentStepInput): Promise<ToolCallResponse> {
  return client.call({
    toolName: 'book_table',
    arguments: args,
    ...(agent ? { agent } : {}),
    callId,
    tenantId: 'acme',
    conversationId: 'conv-1',
    deadlineAt: Date.now() + 3_000,
    sideEffect: 'external',
    dedupe: true,
  });
}

/** Sends a request by hand, so the test sees reply headers and can send what ToolClient never would. */
async function raw(
  tool: string,
  callId: string,
  body: unknown,
): Promise<{ response: ToolCallResponse; replayed: boolean }> {
  const h = natsHeaders();
  h.set('Platform-Call-Id', callId);
  h.set('Platform-Tenant', 'acme');
  h.set('Platform-Conversation', 'conv-1');
  h.set('Platform-Deadline', String(Date.now() + 3_000));
  const reply = await nc.request(`platform.tool.${tool}`, JSON.stringify(body), { timeout: 4_000, headers: h });
  return { response: reply.json<ToolCallResponse>(), replayed: reply.headers?.get(REPLAYED_HEADER) === 'true' };
}

function output(response: ToolCallResponse): AgentStepOutput {
  const parsed = readAgentStepOutput(response);
  if (!parsed) throw new Error(`not an agent step output: ${JSON.stringify(response)}`);
  return parsed;
}

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'agent-test', logger });
  redis = createRedis({ url: await allocateSuiteRedis(), name: 'agent-runner-test', logger });
  client = new ToolClient({ nc, logger, busyRetryDelayMs: 1 });
  runner = await serveRunner({
    nc,
    name: 'agent-runner',
    version: '1.0.0',
    tools: [echo],
    agents: [bookTable, hidden, verbose],
    logger,
    maxResultBytes: 1_000,
    idempotency: { redis, ttlSeconds: 60 },
  });
});

afterAll(async () => {
  await runner?.stop(100);
  await nc?.close();
  redis?.disconnect();
  await server?.stop();
});

describe('discovery', () => {
  it('shows agents to the catalog with kind agent, the schema version and the agent timeout', async () => {
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300 });
    await catalog.refresh();
    expect(catalog.list().map((t) => t.name)).toEqual(['book_table', 'echo_tool', 'hidden_agent', 'verbose_agent']);
    expect(catalog.get('book_table')).toMatchObject({
      kind: 'agent',
      runner: 'agent-runner',
      agentSchemaVersion: bookTable.schemaVersion,
      description: `Books a restaurant table. ${APPROVAL_NOTE}`,
      inputSchema: bookTable.inputJsonSchema,
      timeoutMs: 120_000,
      requiresApproval: true,
      sideEffect: 'external',
      dedupe: true,
    });
    expect(catalog.get('book_table')).not.toHaveProperty('exposeToModel');
    expect(catalog.get('hidden_agent')).toMatchObject({
      kind: 'agent',
      exposeToModel: false,
      requiresApproval: false,
      sideEffect: 'none',
      dedupe: false,
    });
    expect(catalog.get('echo_tool')).toMatchObject({ kind: 'tool' });
    expect(catalog.get('echo_tool')).not.toHaveProperty('agentSchemaVersion');
    expect(catalog.get('echo_tool')).not.toHaveProperty('exposeToModel');
  });

  it('publishes platform.expose on agents', async () => {
    const { default: svcm } = await import('@nats-io/services');
    const infos = [];
    for await (const info of await new svcm.Svcm(nc).client({ strategy: 'timer', maxWait: 300 }).info('agent-runner'))
      infos.push(info);
    const endpoints = infos[0]!.endpoints;
    expect(endpoints.find((e) => e.name === 'hidden_agent')!.metadata![EXPOSE_METADATA_KEY]).toBe('false');
    expect(endpoints.find((e) => e.name === 'book_table')!.metadata).toMatchObject({
      [EXPOSE_METADATA_KEY]: 'true',
      'platform.kind': 'agent',
    });
  });
});

describe('the step protocol over NATS', () => {
  it('collects, asks for approval, and books exactly once', async () => {
    const before = bookings.length;
    // 1. The model called the agent-tool with what it knew; a plain tool call is a start step.
    const start = output(
      await step('call-start', { restaurant: 'Chez Ada', people: 40, task_instruction: 'a quiet table' }),
    );
    expect(start).toMatchObject({
      state: 'waiting_for_input',
      schemaVersion: bookTable.schemaVersion,
      missing: [{ name: 'people', reason: 'parties over 12 must call the restaurant' }],
    });
    if (start.state !== 'waiting_for_input') throw new Error('unreachable');
    expect(start.prompt).toContain('- people: Party size (at most 12). "40" was not accepted');

    // 2. The user answered; the pool extracted the field and sends what was collected so far.
    const input = output(
      await step(
        'call-input',
        {},
        { phase: 'input', collected: start.collected, fields: { people: 4 }, message: 'we are 4' },
      ),
    );
    expect(input).toMatchObject({
      state: 'waiting_for_approval',
      approval: {
        agentName: 'book_table',
        actionSummary: 'Book Chez Ada for 4 at 19:00',
        options: ['approve', 'edit', 'cancel'],
        timeoutMinutes: 30,
      },
    });
    expect(bookings.length).toBe(before);

    // 3. The user approved in their own words.
    const approvalStep: AgentStepInput = { phase: 'approval', collected: input.collected, reply: 'yes please' };
    const done = output(await step('call-approve', {}, approvalStep));
    expect(done).toEqual({
      state: 'completed',
      schemaVersion: bookTable.schemaVersion,
      collected: { restaurant: 'Chez Ada', people: 4, time: '19:00', task_instruction: 'a quiet table' },
      result: { booking: `B-${before + 1}` },
    });
    expect(bookings.slice(before)).toEqual([{ restaurant: 'Chez Ada', people: 4, instruction: 'a quiet table' }]);

    // 4. The approval step is sent again (a lost answer, a resumed run): replayed, not re-run.
    const again = await raw('book_table', 'call-approve', { arguments: {}, agent: approvalStep });
    expect(again.replayed).toBe(true);
    expect(output(again.response)).toEqual(done);
    expect(bookings.length).toBe(before + 1);
  });

  it('cancels without booking', async () => {
    const before = bookings.length;
    const out = output(
      await step(
        'call-cancel',
        {},
        { phase: 'approval', collected: { restaurant: 'Chez Ada', people: 2 }, decision: 'cancel' },
      ),
    );
    expect(out).toMatchObject({ state: 'cancelled', message: 'User cancelled this action.' });
    expect(bookings.length).toBe(before);
  });

  it('answers a failure of run as failed, with the ToolFailure message', async () => {
    const response = await step(
      'call-closed',
      {},
      { phase: 'approval', collected: { restaurant: 'Closed', people: 2 }, decision: 'approve' },
    );
    expect(response).toMatchObject({
      status: 'failed',
      error: { code: 'HANDLER_FAILED', message: 'that restaurant is closed today' },
    });
  });

  it('answers a malformed step request with invalid, running nothing', async () => {
    for (const body of [
      { arguments: {}, agent: { phase: 'resume' } },
      { arguments: {}, agent: { phase: 'input', fields: {} } },
      { agent: { phase: 'start' } },
    ]) {
      const { response } = await raw('book_table', 'call-bad', body);
      expect(response).toMatchObject({
        status: 'invalid',
        error: { code: 'INVALID_REQUEST', message: "the request body is not a step of agent 'book_table'" },
      });
      if (response.status === 'success') throw new Error('unreachable');
      expect(response.error.issues?.length).toBeGreaterThan(0);
    }
  });

  it('truncates a large result inside the step output, which still parses', async () => {
    const response = await client.call({
      toolName: 'verbose_agent',
      arguments: {},
      callId: 'call-big',
      tenantId: 'acme',
      conversationId: 'conv-1',
      deadlineAt: Date.now() + 3_000,
    });
    expect(response).toMatchObject({ status: 'success', truncated: true });
    const out = output(response);
    expect(out.state).toBe('completed');
    if (out.state !== 'completed') throw new Error('unreachable');
    expect(String(out.result)).toContain('[...truncated by the tool runner]');
    expect(Buffer.byteLength(String(out.result))).toBeLessThanOrEqual(1_000);
  });

  it('keeps serving tools as before', async () => {
    const response = await client.call({
      toolName: 'echo_tool',
      arguments: { text: 'hi' },
      callId: 'call-echo',
      tenantId: 'acme',
      conversationId: 'conv-1',
      deadlineAt: Date.now() + 3_000,
    });
    expect(response).toMatchObject({ status: 'success', output: 'hi' });
  });
});
