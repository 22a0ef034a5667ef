import type { TurnFinished } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import { createLogger, PlatformError, type GrpcClientHandle } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Extraction } from './extraction/extraction-schema.js';
import { TurnBatchWriter } from './knowledge/turn-batch-writer.js';
import type { MemoryServer } from './server.js';
import { startTestMemory } from './test-support/test-memory.js';

// DeleteConversation and DeleteCollections (docs/conversations.md): what memory keeps of one
// conversation goes, knowledge another conversation also taught stays with that provenance only,
// nothing of another conversation or tenant is touched, a repeat deletes nothing, and a turn of
// the deleted conversation that arrives late through ingestion is not stored.
const logger = createLogger({ service: 'memory-erasure-test', level: 'silent' });
let nats: NatsServerHandle;
let server: MemoryServer;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;
let db: pg.Pool;

beforeAll(async () => {
  nats = await startNatsServer();
  const url = await createSuiteDatabase('memory_erasure', { pgvector: false });
  ({ server, client } = await startTestMemory(
    { databaseUrl: url, natsUrl: nats.url },
    { MEMORY_TOOLS_ENABLED: 'false' },
    logger,
  ));
  db = new pg.Pool({ connectionString: url, options: '-c search_path=memory', max: 4 });
}, 60_000);

afterAll(async () => {
  await db?.end();
  client?.close();
  await server?.stop();
  await nats?.stop();
});

const save = (tenantId: string, conversationId: string, predicate: string, object: string) =>
  client.rpc.saveFact({
    tenantId,
    collection: 'user:dee',
    subject: 'Dee',
    predicate,
    object,
    kind: '',
    confidence: 0,
    conversationId,
    runId: `run-${conversationId}`,
    messageSeq: 1,
  });
const append = (tenantId: string, conversationId: string) =>
  client.rpc.appendMessages({
    tenantId,
    conversationId,
    messagesJson: [JSON.stringify({ role: 'user', content: 'I am allergic to peanuts' })],
    runId: `run-${conversationId}`,
    appendId: '',
  });
const note = (tenantId: string, conversationId: string) =>
  client.rpc.setWorkingMemory({
    tenantId,
    runId: `run-${conversationId}`,
    conversationId,
    entries: [{ key: 'order', valueJson: '"A-1"', updatedAt: undefined }],
  });
const del = (tenantId: string, conversationId: string) =>
  client.rpc.deleteConversation({ tenantId, conversationId, actor: 'alice', reason: 'test' });
const rows = async (table: string, tenantId: string, conversationId: string) =>
  Number(
    (
      await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1 AND conversation_id = $2`,
        [tenantId, conversationId],
      )
    ).rows[0]!.n,
  );
const facts = async (tenantId: string) =>
  (
    await db.query<{ object: string; conversation_id: string }>(
      'SELECT object, conversation_id FROM facts WHERE tenant_id = $1 ORDER BY object',
      [tenantId],
    )
  ).rows;

describe('DeleteConversation', () => {
  beforeAll(async () => {
    for (const tenant of ['t1', 't2']) {
      await append(tenant, 'gone');
      await note(tenant, 'gone');
      await save(tenant, 'gone', 'allergic_to', 'peanuts');
      await save(tenant, 'gone', 'prefers', 'window seats');
    }
    await append('t1', 'kept');
    await save('t1', 'kept', 'prefers', 'window seats'); // the same fact, taught again
  });

  it('deletes its history, working memory and the facts only it taught; a shared fact keeps the other source', async () => {
    const done = await del('t1', 'gone');
    expect(done).toMatchObject({
      messagesDeleted: 1,
      factsDeleted: 1,
      factsUnlinked: 1,
      workingMemoryDeleted: 1,
    });
    expect(done.auditId).not.toBe('');
    for (const table of ['conversations', 'messages', 'appends', 'working_memory', 'facts', 'fact_sources'])
      expect(await rows(table, 't1', 'gone'), table).toBe(0);
    expect(await facts('t1')).toEqual([{ object: 'window seats', conversation_id: 'kept' }]);
    expect(await rows('messages', 't1', 'kept')).toBe(1);
    // The vocabulary recall searches by no longer has the deleted fact's words.
    const terms = await db.query("SELECT 1 FROM recall_terms WHERE tenant_id = 't1' AND term = 'peanut'");
    expect(terms.rowCount).toBe(0);
    // The audit names the conversation and counts, never content.
    const audit = await db.query<{ target: string; counts: Record<string, number> }>(
      "SELECT target, counts FROM audit_log WHERE tenant_id = 't1' AND action = 'delete_conversation'",
    );
    expect(audit.rows).toEqual([{ target: 'conversation:gone', counts: expect.objectContaining({ factsDeleted: 1 }) }]);
    expect(JSON.stringify(audit.rows)).not.toContain('peanut');
  });

  it("leaves another tenant's conversation of the same id alone", async () => {
    expect(await rows('messages', 't2', 'gone')).toBe(1);
    expect((await facts('t2')).map((f) => f.object)).toEqual(['peanuts', 'window seats']);
  });

  it('deletes nothing the second time', async () => {
    expect(await del('t1', 'gone')).toMatchObject({ messagesDeleted: 0, factsDeleted: 0, factsUnlinked: 0 });
  });

  it('does not store a turn of the deleted conversation that ingestion brings late', async () => {
    const writer = new TurnBatchWriter(db, new Set(), () => ({ maxFacts: 100, tier: 'default' }));
    const turn: TurnFinished = {
      type: 'memory.turn_finished',
      tenantId: 't1',
      conversationId: 'gone',
      runId: 'run-late',
      firstSeq: 1,
      lastSeq: 2,
      finishedAt: new Date().toISOString(),
    };
    const extraction = Extraction.parse({
      facts: [{ subject: 'Dee', predicate: 'allergic_to', object: 'peanuts', confidence: 0.9, sourceSeq: 1 }],
      episodeSummary: 'Dee is allergic to peanuts.',
    });
    const stored = await writer.store([{ turn, collection: 'user:dee', extraction }]);
    expect(stored.turns[0]!.duplicate).toBe(true);
    expect(await facts('t1')).toEqual([{ object: 'window seats', conversation_id: 'kept' }]);
    // Used again, the conversation is ingested as any other.
    await append('t1', 'gone');
    const again = await writer.store([{ turn: { ...turn, runId: 'run-again' }, collection: 'user:dee', extraction }]);
    expect(again.turns[0]!.duplicate).toBe(false);
  });

  it('refuses a malformed conversation id', async () => {
    await expect(del('t1', '')).rejects.toBeInstanceOf(PlatformError);
    await expect(del('t1', '')).rejects.toMatchObject({ kind: 'invalid_argument' });
  });
});

describe('DeleteCollections', () => {
  it("deletes every fact of the collection and below, and only the tenant's", async () => {
    await client.rpc.saveFact({
      tenantId: 't3',
      collection: 'user:erin:work',
      subject: 'Erin',
      predicate: 'works_at',
      object: 'Acme',
      kind: '',
      confidence: 0,
      conversationId: '',
      runId: '',
      messageSeq: 0,
    });
    await client.rpc.saveFact({
      tenantId: 't3',
      collection: 'user:erinna',
      subject: 'Erinna',
      predicate: 'works_at',
      object: 'Initech',
      kind: '',
      confidence: 0,
      conversationId: '',
      runId: '',
      messageSeq: 0,
    });
    const done = await client.rpc.deleteCollections({
      tenantId: 't3',
      collectionPrefix: 'user:erin',
      actor: 'admin',
      reason: 'erasure',
    });
    expect(done.factsDeleted).toBe(1);
    expect((await facts('t3')).map((f) => f.object)).toEqual(['Initech']);
    await expect(
      client.rpc.deleteCollections({ tenantId: 't3', collectionPrefix: '', actor: 'a', reason: '' }),
    ).rejects.toMatchObject({ code: 'INVALID_COLLECTION' });
  });
});
