import type { memoryV1 } from '@platform/proto';
import { createLogger, type GrpcClientHandle } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase, pgvectorModes } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryServer } from './server.js';
import { startTestMemory } from './test-support/test-memory.js';
import { SIM_API_KEY, startLlmSim } from './test-support/llm-sim.js';

const logger = createLogger({ service: 'memory-recall-test', level: 'silent' });
let sim: Awaited<ReturnType<typeof startLlmSim>>;
// A private NATS: every memory server consumes the one ingestion queue, which suites must not share.
let nats: NatsServerHandle;

beforeAll(async () => {
  [sim, nats] = await Promise.all([startLlmSim(), startNatsServer()]);
}, 60_000);
afterAll(async () => {
  await sim.stop();
  await nats.stop();
});

describe.each(pgvectorModes())('recall ($name)', (mode) => {
  let server: MemoryServer;
  let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;
  let db: pg.Pool;

  beforeAll(async () => {
    if (!mode.available) return;
    const url = await createSuiteDatabase('memory_recall', { pgvector: mode.pgvector });
    db = new pg.Pool({ connectionString: url, options: '-c search_path=memory', max: 2 });
    ({ server, client } = await startTestMemory(
      { databaseUrl: url, natsUrl: nats.url },
      {
        MEMORY_SESSION_SWEEP_MS: '200',
        OPENAI_BASE_URL: sim.baseURL,
        OPENAI_API_KEY: SIM_API_KEY,
        MEMORY_EMBEDDING_MODEL: 'sim-embed-1',
        MEMORY_EMBEDDING_TIMEOUT_MS: '2000',
        MEMORY_TOOLS_ENABLED: 'false',
      },
      logger,
    ));
    const save = (subject: string, predicate: string, object: string) =>
      client.rpc.saveFact({
        tenantId: 'acme',
        collection: 'user:alice',
        subject,
        predicate,
        object,
        kind: '',
        confidence: 0,
        conversationId: '',
        runId: '',
        messageSeq: 0,
      });
    await save('Alice', 'lives_in', 'Berlin');
    await save('Alice', 'works_at', 'Globex Corporation');
    await save('Alice', 'likes', 'window seats on long flights');
    await save('Bob', 'plays', 'the cello');
  });

  afterAll(async () => {
    client?.close();
    await server?.stop();
    await db?.end();
  });

  const recall = (query: string) =>
    client.rpc.recall({
      tenantId: 'acme',
      query,
      collectionPrefix: 'user',
      limit: 3,
      tokenBudget: 0,
      conversationId: '',
      includeEpisodes: true,
    });

  it.skipIf(!mode.available)('says which search it runs', () => {
    if (mode.pgvector)
      expect(server.search).toMatchObject({
        mode: 'hybrid',
        vectors: { enabled: true, model: 'sim-embed-1', dimensions: 256 },
      });
    else
      expect(server.search).toMatchObject({
        mode: 'keyword',
        vectors: { enabled: false, reason: expect.stringMatching(/not installed/) as unknown },
      });
  });

  it.skipIf(!mode.available)('finds facts by words, stems and misspelt names, ranked and explained', async () => {
    const byWords = await recall('where does Alice live');
    expect(byWords.items[0]!.fact?.object).toBe('Berlin');
    expect(byWords.searchMode).toBe(mode.pgvector ? 'hybrid' : 'keyword');
    const typo = await recall('Globx Corporaton');
    expect(typo.items[0]!.fact?.object).toBe('Globex Corporation');
    expect(typo.items[0]!.matchedBy.some((m) => m.startsWith('trigram#'))).toBe(true);
    if (mode.pgvector) expect(byWords.items.some((i) => i.matchedBy.some((m) => m.startsWith('vector#')))).toBe(true);
  });

  it.skipIf(!mode.available)(
    'keeps recalling by keyword and trigram when the embeddings endpoint is down',
    async () => {
      await sim.armEmbeddingFault({ kind: 'server_error', times: 'always' });
      try {
        const recalled = await recall('which seats does Alice like on flights');
        expect(recalled.items[0]!.fact?.object).toBe('window seats on long flights');
        expect(recalled.searchMode).toBe('keyword');
        if (mode.pgvector) expect(recalled.vectorError).toMatch(/embeddings unavailable/);
      } finally {
        await sim.clearEmbeddingFaults();
      }
    },
  );

  it.skipIf(!mode.available || !mode.pgvector)(
    'stores a fact while the embeddings endpoint is down, and embeds it later',
    async () => {
      await sim.armEmbeddingFault({ kind: 'server_error', times: 'always' });
      let factId: string;
      try {
        factId = (
          await client.rpc.saveFact({
            tenantId: 'acme',
            collection: 'user:alice',
            subject: 'Alice',
            predicate: 'owns',
            object: 'a sailing boat',
            kind: '',
            confidence: 0,
            conversationId: '',
            runId: '',
            messageSeq: 0,
          })
        ).fact!.factId;
      } finally {
        await sim.clearEmbeddingFaults();
      }
      const embedded = async () =>
        (await db.query(`SELECT 1 FROM embeddings_d256 WHERE item_id = $1`, [factId])).rowCount ?? 0;
      for (let i = 0; i < 200 && (await embedded()) === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await embedded()).toBe(1);
    },
  );

  it.skipIf(!mode.available)('keeps to the token budget and says what it left out', async () => {
    const recalled = await client.rpc.recall({
      tenantId: 'acme',
      query: 'Alice Berlin Globex seats',
      collectionPrefix: '',
      limit: 10,
      tokenBudget: 12,
      conversationId: '',
      includeEpisodes: false,
    });
    expect(recalled.usedTokens).toBeLessThanOrEqual(12);
    expect(recalled.items.length).toBeGreaterThan(0);
    expect(recalled.droppedForBudget).toBeGreaterThan(0);
  });

  it.skipIf(!mode.available)(
    'injects a text once, however many episodes say it, and still finds the distinct ones ranked below the repeats',
    async () => {
      // Session episodes (a repeated turn episode is stored once): several conversations' summaries may say the same.
      for (let i = 0; i < 30; i++) {
        await db.query(
          `INSERT INTO episodes (tenant_id, collection, conversation_id, kind, summary, first_seq, last_seq) VALUES ('acme', 'user:alice', $1, 'session', $2, 1, 2)`,
          [
            `conv-q${i}`,
            i % 10 === 0
              ? `The user asked about the harpsichord tuning ${i}`
              : 'The user asked about the harpsichord tuning',
          ],
        );
      }
      const recalled = await client.rpc.recall({
        tenantId: 'acme',
        query: 'harpsichord tuning',
        collectionPrefix: 'user',
        limit: 8,
        tokenBudget: 0,
        conversationId: '',
        includeEpisodes: true,
      });
      const texts = recalled.items.map((i) => i.text.replace(/^earlier \([^)]*\): /, ''));
      expect(texts.filter((t) => t === 'The user asked about the harpsichord tuning')).toHaveLength(1);
      expect(new Set(texts).size).toBe(texts.length);
      expect(texts).toEqual(
        expect.arrayContaining([
          'The user asked about the harpsichord tuning 0',
          'The user asked about the harpsichord tuning 10',
          'The user asked about the harpsichord tuning 20',
        ]),
      );
      expect(recalled.items).toHaveLength(4);
    },
  );

  it.skipIf(!mode.available)('falls back to recent history when nothing matches', async () => {
    await client.rpc.appendMessages({
      tenantId: 'acme',
      conversationId: 'conv-h',
      messagesJson: [JSON.stringify({ role: 'user', content: 'hello there' })],
      runId: '',
      appendId: '',
    });
    const recalled = await client.rpc.recall({
      tenantId: 'acme',
      query: 'zzzz qqqq',
      collectionPrefix: '',
      limit: 5,
      tokenBudget: 0,
      conversationId: 'conv-h',
      includeEpisodes: true,
    });
    expect(recalled.searchMode).toBe('recent_history');
    expect(recalled.items.map((i) => i.message?.text)).toEqual(['hello there']);
  });
});
