import type { memoryV1 } from '@platform/proto';
import { createLogger, createPgPool, type GrpcClientHandle } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryConfig, memoryConnections, recallSettings } from '../config.js';
import { MEMORY_SCHEMA, type MemoryServer } from '../server.js';
import { startTestMemory } from '../test-support/test-memory.js';
import { RecallEngine } from './recall-engine.js';
import { openTrigramPool, TRIGRAM_APPLICATION_NAME } from './trigram-connections.js';

// Recall's trigram search runs on connections of its own that reuse one generic plan of it; the
// other searches stay on the shared pool, and DATABASE_POOL_MAX still bounds the whole service.
const logger = createLogger({ service: 'memory-trigram-connections-test', level: 'silent' });

describe('how DATABASE_POOL_MAX is split', () => {
  it('gives the trigram search a quarter by default, none below four connections, and what it is told', () => {
    expect(memoryConnections({ DATABASE_POOL_MAX: 10, MEMORY_RECALL_TRIGRAM_CONNECTIONS: undefined })).toEqual({
      shared: 8,
      trigram: 2,
    });
    expect(memoryConnections({ DATABASE_POOL_MAX: 3, MEMORY_RECALL_TRIGRAM_CONNECTIONS: undefined })).toEqual({
      shared: 3,
      trigram: 0,
    });
    expect(memoryConnections({ DATABASE_POOL_MAX: 10, MEMORY_RECALL_TRIGRAM_CONNECTIONS: 0 })).toEqual({
      shared: 10,
      trigram: 0,
    });
    expect(memoryConnections({ DATABASE_POOL_MAX: 10, MEMORY_RECALL_TRIGRAM_CONNECTIONS: 3 })).toEqual({
      shared: 7,
      trigram: 3,
    });
  });

  it('refuses to give it every connection', () => {
    const parsed = MemoryConfig.safeParse({ DATABASE_POOL_MAX: '4', MEMORY_RECALL_TRIGRAM_CONNECTIONS: '4' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['MEMORY_RECALL_TRIGRAM_CONNECTIONS'],
      message: 'must be less than DATABASE_POOL_MAX',
    });
  });
});

describe('the trigram search on its own connections', () => {
  let nats: NatsServerHandle;
  let databaseUrl: string;
  let server: MemoryServer;
  let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;
  let admin: pg.Client;
  const settings = { DATABASE_POOL_MAX: '4', MEMORY_RECALL_TRIGRAM_CONNECTIONS: '1', MEMORY_TOOLS_ENABLED: 'false' };

  beforeAll(async () => {
    nats = await startNatsServer();
    databaseUrl = await createSuiteDatabase('memory_trigram_connections', { pgvector: false });
    ({ server, client } = await startTestMemory({ databaseUrl, natsUrl: nats.url }, settings, logger));
    for (const [subject, predicate, object] of [
      ['Alice', 'lives_in', 'Berlin'],
      ['Bob', 'plays', 'the cello'],
      ['Carol', 'studies', 'marine biology'],
    ]) {
      await client.rpc.saveFact({
        tenantId: 'acme',
        collection: 'user:x',
        subject: subject!,
        predicate: predicate!,
        object: object!,
        kind: '',
        confidence: 0,
        conversationId: '',
        runId: '',
        messageSeq: 0,
      });
    }
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
  }, 60_000);

  afterAll(async () => {
    await admin?.end();
    client?.close();
    await server?.stop();
    await nats?.stop();
  });

  const recall = (query: string) =>
    client.rpc.recall({
      tenantId: 'acme',
      query,
      collectionPrefix: '',
      limit: 8,
      tokenBudget: 0,
      conversationId: '',
      includeEpisodes: true,
    });

  it('finds a misspelt name through the trigram connections, and only the trigram statement runs there', async () => {
    const { items } = await recall('where does Alise live');
    expect(items[0]?.fact?.subject).toBe('Alice');
    expect(items[0]?.matchedBy.some((m) => m.startsWith('trigram#'))).toBe(true);
    const { rows } = await admin.query<{ query: string }>(
      'SELECT query FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [TRIGRAM_APPLICATION_NAME],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.query).toMatch(/^WITH words AS/);
  });

  it('reuses one generic plan of the trigram statement, and answers as the shared connections do', async () => {
    const config = MemoryConfig.parse({ DATABASE_URL: databaseUrl, ...settings });
    const shared = createPgPool({
      url: databaseUrl,
      applicationName: 'memory-test',
      searchPath: MEMORY_SCHEMA,
      maxConnections: 2,
      settings: { 'pg_trgm.word_similarity_threshold': String(config.MEMORY_RECALL_TRIGRAM_THRESHOLD) },
      logger,
    });
    const trigram = openTrigramPool({
      url: databaseUrl,
      schema: MEMORY_SCHEMA,
      connections: 1,
      threshold: config.MEMORY_RECALL_TRIGRAM_THRESHOLD,
      logger,
    })!;
    try {
      const withOwn = new RecallEngine(shared, undefined, recallSettings(config), logger, { trigramPool: trigram });
      const sharing = new RecallEngine(shared, undefined, recallSettings(config), logger);
      const q = {
        tenantId: 'acme',
        collectionPrefix: '',
        limit: 8,
        tokenBudget: 0,
        conversationId: '',
        includeEpisodes: true,
      };
      for (const query of ['where does Alise live', 'Bobb and the chello', 'Carrol biology']) {
        const own = await withOwn.recall({ ...q, query });
        expect(own.items.map((i) => [i.fact?.subject, i.matchedBy])).toEqual(
          (await sharing.recall({ ...q, query })).items.map((i) => [i.fact?.subject, i.matchedBy]),
        );
      }
      const { rows } = await trigram.query<{ generic_plans: string; custom_plans: string }>(
        `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'recall-trigram'`,
      );
      expect(rows).toEqual([{ generic_plans: '3', custom_plans: '0' }]);
    } finally {
      await trigram.end();
      await shared.end();
    }
  });
});
