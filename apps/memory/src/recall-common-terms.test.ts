import type { memoryV1 } from '@platform/proto';
import { createLogger, type GrpcClientHandle } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryServer } from './server.js';
import { startTestMemory } from './test-support/test-memory.js';

// A word most of a tenant's facts share ("lives in") picks no candidates once the statistics say
// it is common: it still ranks the facts the query's other words find, and a query of common words
// only is answered by them as before. Without statistics (a new partition) nothing is common.
const logger = createLogger({ service: 'memory-recall-common-terms-test', level: 'silent' });
const PEOPLE = ['Ann', 'Ben', 'Cleo', 'Dario', 'Elin', 'Farid', 'Gus', 'Hana', 'Ivo', 'Jun', 'Kofi', 'Lena'];
const CITIES = [
  'Oslo',
  'Porto',
  'Quito',
  'Riga',
  'Sofia',
  'Tunis',
  'Utrecht',
  'Vigo',
  'Warsaw',
  'Xian',
  'York',
  'Zagreb',
];
const HOBBIES = [
  'chess',
  'tennis',
  'pottery',
  'karate',
  'rowing',
  'origami',
  'fencing',
  'archery',
  'juggling',
  'sailing',
  'climbing',
  'baking',
];
let nats: NatsServerHandle;
let server: MemoryServer;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;
let db: pg.Pool;

beforeAll(async () => {
  nats = await startNatsServer();
  const url = await createSuiteDatabase('memory_recall_common_terms', { pgvector: false });
  db = new pg.Pool({ connectionString: url, options: '-c search_path=memory', max: 2 });
  ({ server, client } = await startTestMemory(
    { databaseUrl: url, natsUrl: nats.url },
    {
      MEMORY_TOOLS_ENABLED: 'false',
      MEMORY_RECALL_HALF_LIFE_DAYS: '0',
      // 12 of the tenant's 24 facts say "lives in": more than a term may bring, so it is common once analysed.
      MEMORY_RECALL_PER_TERM_CANDIDATES: '4',
      // Read the statistics at every recall, so the test sees them right after ANALYZE.
      MEMORY_RECALL_COMMON_TERMS_REFRESH_MS: '0',
    },
    logger,
  ));
  for (const [i, person] of PEOPLE.entries()) {
    const save = (predicate: string, object: string) =>
      client.rpc.saveFact({
        tenantId: 'acme',
        collection: 'user:x',
        subject: person,
        predicate,
        object,
        kind: '',
        confidence: 0,
        conversationId: '',
        runId: '',
        messageSeq: 0,
      });
    await save('lives_in', CITIES[i]!);
    await save('plays', HOBBIES[i]!);
  }
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  await db?.end();
  await nats?.stop();
});

const recall = async (query: string) =>
  (
    await client.rpc.recall({
      tenantId: 'acme',
      query,
      collectionPrefix: '',
      limit: 20,
      tokenBudget: 0,
      conversationId: '',
      includeEpisodes: true,
    })
  ).items.map((i) => `${i.fact?.subject} ${i.fact?.predicate} ${i.fact?.object}`);

describe('recall with a common word', () => {
  it('without statistics, every query word picks candidates (the common one an arbitrary few)', async () => {
    const items = await recall('where does Hana live');
    expect(items[0]).toBe('Hana lives_in Vigo');
    expect(items.filter((i) => !i.startsWith('Hana ')).length).toBeGreaterThan(0);
  });

  it('once analysed, the common word ranks what the other words find and picks nothing itself', async () => {
    await db.query('ANALYZE facts');
    // Both of Hana's facts, and no one else's "lives in" (the two tie: full text ranks "lives in" first, trigram the newer).
    expect((await recall('where does Hana live')).sort()).toEqual(['Hana lives_in Vigo', 'Hana plays archery']);
  });

  it('a misspelt name is still found by trigram next to a common word', async () => {
    expect((await recall('where does Farrid live')).sort()).toEqual(['Farid lives_in Tunis', 'Farid plays origami']);
  });

  it('a query of common words only is answered by them', async () => {
    const items = await recall('who lives where');
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => i.includes(' lives_in '))).toBe(true);
  });
});
