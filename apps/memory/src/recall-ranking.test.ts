import type { memoryV1 } from '@platform/proto';
import { createLogger, type GrpcClientHandle } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MemoryServer } from './server.js';
import { startTestMemory } from './test-support/test-memory.js';

// The ranking of a fixed corpus, pinned: changes to how recall finds candidates (indexes, bounded
// top-k per search) must not change what it returns or in which order. The snapshot was taken with
// the engine that compared every query word with every fact's whole text; the vocabulary-based
// trigram search returns the same, except one match that spanned two words of a text ("live"
// found in "Eve likes": "ve " from one word, "li" from the next), which it no longer makes.
const logger = createLogger({ service: 'memory-recall-ranking-test', level: 'silent' });
let nats: NatsServerHandle;
let databaseUrl: string;
let server: MemoryServer;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;

const CORPUS: [string, string, string][] = [
  ['Alice', 'lives_in', 'Berlin'],
  ['Alice', 'works_at', 'Globex Corporation'],
  ['Alice', 'likes', 'window seats on long flights'],
  ['Alice', 'speaks', 'German and Portuguese'],
  ['Alice', 'owns', 'a grey cat named Pixel'],
  ['Bob', 'plays', 'the cello in an orchestra'],
  ['Bob', 'lives_in', 'Lisbon'],
  ['Bob', 'works_at', 'Initech'],
  ['Bob', 'likes', 'hiking in the Alps'],
  ['Carol', 'studies', 'marine biology'],
  ['Carol', 'lives_in', 'Lyon'],
  ['Carol', 'prefers_food', 'vegetarian dishes'],
  ['Dmitri', 'knows', 'Alice from university'],
  ['Dmitri', 'visited', 'Berlin last spring'],
  ['Dmitri', 'works_at', 'Globe Logistics'],
  ['Eve', 'likes', 'long flights with aisle seats'],
  ['Eve', 'owns', 'a sailing boat called Seabird'],
  ['Eve', 'plays', 'chess online'],
  ['Frank', 'lives_in', 'Bern'],
  ['Frank', 'speaks', 'Italian'],
];

const QUERIES = [
  'where does Alice live',
  'Globx Corporaton',
  'which seats does Alice like on flights',
  'who lives in Berlin or Bern',
  'what does Bob play',
  'Carol vegetarian food',
  'Dmitry and Alise',
  'sailing boat Seabird',
  'who works at Globe',
];

const SETTINGS = {
  MEMORY_TOOLS_ENABLED: 'false',
  // Every fact is saved at about the same moment: no decay keeps milliseconds from reordering them.
  MEMORY_RECALL_HALF_LIFE_DAYS: '0',
};

beforeAll(async () => {
  nats = await startNatsServer();
  databaseUrl = await createSuiteDatabase('memory_recall_ranking', { pgvector: false });
  ({ server, client } = await startTestMemory({ databaseUrl, natsUrl: nats.url }, SETTINGS, logger));
  for (const [subject, predicate, object] of CORPUS) {
    await client.rpc.saveFact({
      tenantId: 'acme',
      collection: 'user:pinned',
      subject,
      predicate,
      object,
      kind: '',
      confidence: 0,
      conversationId: '',
      runId: '',
      messageSeq: 0,
    });
  }
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  await nats?.stop();
});

/** Each item as "score | subject predicate object | searches", best first; ties (equal scores) in text order. */
async function ranking(query: string, recaller = client): Promise<string[]> {
  const { items } = await recaller.rpc.recall({
    tenantId: 'acme',
    query,
    collectionPrefix: '',
    limit: 100,
    tokenBudget: 0,
    conversationId: '',
    includeEpisodes: true,
  });
  return items
    .map((i) => ({
      score: i.score,
      line: `${i.score.toFixed(6)} | ${i.fact?.subject} ${i.fact?.predicate} ${i.fact?.object} | ${[...i.matchedBy].sort().join(' ')}`,
    }))
    .sort((a, b) => b.score - a.score || a.line.localeCompare(b.line))
    .map((i) => i.line);
}

it('ranks a fixed corpus as pinned', async () => {
  const all: Record<string, string[]> = {};
  for (const query of QUERIES) all[query] = await ranking(query);
  expect(all).toMatchSnapshot();
});

// Recall's keyword statements are named, so PostgreSQL may reuse a generic plan of them (it does for
// a small tenant): that plan must find and order exactly what a plan made for the call's values does.
it('ranks alike when PostgreSQL runs generic plans of the named statements', async () => {
  const custom: Record<string, string[]> = {};
  for (const query of QUERIES) custom[query] = await ranking(query);
  const database = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE ${database} SET plan_cache_mode = force_generic_plan`);
    const generic = await startTestMemory({ databaseUrl, natsUrl: nats.url }, SETTINGS, logger);
    try {
      const seen: Record<string, string[]> = {};
      for (const query of QUERIES) seen[query] = await ranking(query, generic.client);
      expect(seen).toEqual(custom);
    } finally {
      generic.client.close();
      await generic.server.stop();
    }
  } finally {
    await admin.query(`ALTER DATABASE ${database} RESET plan_cache_mode`);
    await admin.end();
  }
});
