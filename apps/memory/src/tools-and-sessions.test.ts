import { runEndedSubject } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import { connectNats, createLogger, type GrpcClientHandle, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import { OpenAIStructuredOutput } from '@platform/llm';
import { ToolClient } from '@platform/tool-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryConfig } from './config.js';
import { WorkingMemoryStore } from './knowledge/working-memory-store.js';
import { startMemoryServer, type MemoryServer } from './server.js';
import { SessionSweeper } from './sessions/session-sweeper.js';
import { startFakeModel } from './test-support/fake-model.js';
import { memoryTestClient, memoryTlsEnv } from './test-support/test-memory.js';

const logger = createLogger({ service: 'memory-tools-test', level: 'silent' });
let nats: NatsServerHandle;
let nc: NatsConnection;
let server: MemoryServer;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;
let tools: ToolClient;
let db: pg.Pool;
let config: MemoryConfig;
let model: Awaited<ReturnType<typeof startFakeModel>>;

beforeAll(async () => {
  [nats, model] = await Promise.all([
    startNatsServer(),
    startFakeModel((request) =>
      request.schemaName === 'session_summary'
        ? JSON.stringify({ summary: `Session about: ${request.user.slice(0, 60)}`, topics: ['travel'] })
        : 500,
    ),
  ]);
  config = MemoryConfig.parse({
    ...(await memoryTlsEnv()),
    DATABASE_URL: await createSuiteDatabase('memory_tools'),
    NATS_URL: nats.url,
    GRPC_PORT: '0',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test',
    MEMORY_SESSION_IDLE_MS: '0',
  });
  server = await startMemoryServer(config, logger);
  client = await memoryTestClient(server.port, 5_000);
  nc = await connectNats({ servers: nats.url, name: 'memory-tools-test', logger });
  tools = new ToolClient({ nc, logger });
  db = new pg.Pool({ connectionString: config.DATABASE_URL, options: '-c search_path=memory' });
}, 60_000);

afterAll(async () => {
  client.close();
  await server.stop();
  await nc.drain();
  await db.end();
  await model.close();
  await nats.stop();
});

let calls = 0;
const call = (toolName: string, args: Record<string, unknown>, scope: { tenantId?: string; runId?: string } = {}) =>
  tools.call({
    toolName,
    arguments: args,
    callId: `call-${(calls += 1)}`,
    tenantId: scope.tenantId ?? 'acme',
    conversationId: 'conv-t',
    runId: scope.runId ?? 'run-t',
    deadlineAt: Date.now() + 10_000,
  });

describe('memory tools over the tool protocol', () => {
  it('saves with memory_save and finds with memory_search, per tenant', async () => {
    const saved = await call('memory_save', { subject: 'user', predicate: 'favourite colour', object: 'teal' });
    expect(saved).toMatchObject({ status: 'success', output: { duplicate: false } });
    const { facts } = await client.rpc.listFacts({
      tenantId: 'acme',
      collectionPrefix: '',
      subject: 'user',
      includeSuperseded: false,
      pageSize: 0,
      pageToken: '',
    });
    expect(facts[0]).toMatchObject({
      predicate: 'favourite_colour',
      object: 'teal',
      source: { origin: 'saved', conversationId: 'conv-t', runId: 'run-t' },
    });
    const found = await call('memory_search', { query: 'what is my favourite colour' });
    expect(found).toMatchObject({
      status: 'success',
      output: { results: [{ text: expect.stringMatching(/teal/) as unknown }] },
    });
    const other = await call('memory_search', { query: 'what is my favourite colour' }, { tenantId: 'globex' });
    expect(other).toMatchObject({ status: 'success', output: { results: [] } });
  });

  it('keeps a working memory per run, invisible to other runs and tenants', async () => {
    expect(await call('working_memory_set', { key: 'flight', value: { number: 'LH 123' } })).toMatchObject({
      status: 'success',
      output: { keys: 1 },
    });
    expect(await call('working_memory_get', {})).toMatchObject({
      status: 'success',
      output: { flight: { number: 'LH 123' } },
    });
    expect(await call('working_memory_get', {}, { runId: 'run-other' })).toMatchObject({
      status: 'success',
      output: {},
    });
    expect(await call('working_memory_get', {}, { tenantId: 'globex' })).toMatchObject({
      status: 'success',
      output: {},
    });
    expect(await call('working_memory_set', { key: 'bad key!', value: 1 })).toMatchObject({ status: 'invalid' });
    expect((await client.rpc.clearWorkingMemory({ tenantId: 'acme', runId: 'run-t' })).cleared).toBe(1);
  });

  it("drops a run's working memory when the run-ended notice comes, for that tenant and run only", async () => {
    await call('working_memory_set', { key: 'hotel', value: 'Ryokan' }, { runId: 'run-ending' });
    await call('working_memory_set', { key: 'hotel', value: 'kept' }, { runId: 'run-ending', tenantId: 'globex' });
    await call('working_memory_set', { key: 'hotel', value: 'kept' }, { runId: 'run-going-on' });
    nc.publish(runEndedSubject('acme'), 'not json');
    const notice = {
      type: 'run.ended',
      tenantId: 'acme',
      runId: 'run-ending',
      conversationId: 'conv-t',
      stopReason: 'final_answer',
      endedAt: new Date().toISOString(),
    };
    nc.publish(runEndedSubject('acme'), JSON.stringify(notice));
    const keysOf = async (tenantId: string, runId: string) =>
      (await client.rpc.getWorkingMemory({ tenantId, runId, keys: [] })).entries.length;
    for (let i = 0; i < 200 && (await keysOf('acme', 'run-ending')) > 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await keysOf('acme', 'run-ending')).toBe(0);
    expect(await keysOf('globex', 'run-ending')).toBe(1);
    expect(await keysOf('acme', 'run-going-on')).toBe(1);
  });
});

describe('sessions', () => {
  it('summarises an idle conversation into one episode, even with two replicas sweeping at once', async () => {
    await client.rpc.appendMessages({
      tenantId: 'acme',
      conversationId: 'conv-idle',
      messagesJson: [
        JSON.stringify({ role: 'user', content: 'Plan my trip to Kyoto in April' }),
        JSON.stringify({ role: 'assistant', content: 'Here is a plan.' }),
      ],
      runId: '',
      appendId: '',
    });
    await db.query(
      `UPDATE conversations SET updated_at = now() - interval '2 hours' WHERE conversation_id = 'conv-idle'`,
    );
    const settings = {
      sessionIdleMs: 60_000,
      sweepIntervalMs: config.MEMORY_SESSION_SWEEP_MS,
      workingMemoryTtlMs: config.MEMORY_WORKING_MEMORY_TTL_MS,
      defaultCollection: config.MEMORY_DEFAULT_COLLECTION,
    };
    const llm = new OpenAIStructuredOutput({ baseURL: model.url, apiKey: 'test', model: 'fake', timeoutMs: 5_000 });
    const sweepers = [0, 1].map(
      () => new SessionSweeper(db, llm, new WorkingMemoryStore(db, { maxKeys: 10 }), undefined, settings, logger),
    );
    const written = await Promise.all(sweepers.map((s) => s.summariseIdleSessions()));
    expect(written.reduce((a, b) => a + b, 0)).toBe(1);
    await Promise.all(sweepers.map((s) => s.summariseIdleSessions()));
    const { rows } = await db.query<{ kind: string; summary: string; first_seq: string; last_seq: string }>(
      `SELECT kind, summary, first_seq, last_seq FROM episodes WHERE conversation_id = 'conv-idle'`,
    );
    expect(rows).toEqual([
      { kind: 'session', summary: expect.stringMatching(/Kyoto/) as unknown, first_seq: '1', last_seq: '2' },
    ]);
    const recalled = await client.rpc.recall({
      tenantId: 'acme',
      query: 'Kyoto trip',
      collectionPrefix: '',
      limit: 0,
      tokenBudget: 0,
      conversationId: '',
      includeEpisodes: true,
    });
    expect(recalled.items[0]?.episode?.kind).toBe('session');
  });
});
