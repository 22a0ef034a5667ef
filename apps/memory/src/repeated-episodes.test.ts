import type { TurnFinished } from '@platform/contracts';
import { OpenAIEmbeddings } from '@platform/llm';
import type { memoryV1 } from '@platform/proto';
import { createLogger, type GrpcClientHandle } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase, sharedInfra } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Extraction } from './extraction/extraction-schema.js';
import { TurnBatchWriter, type TurnToStore } from './knowledge/turn-batch-writer.js';
import { VectorIndex } from './recall/vector-index.js';
import type { MemoryServer } from './server.js';
import { SIM_API_KEY, startLlmSim } from './test-support/llm-sim.js';
import { startTestMemory } from './test-support/test-memory.js';

// A repeated turn episode is stored once (migration 0005, knowledge/turn-episodes.ts): written
// here through the batch writer the ingestion consumer uses, recalled through the service.
const logger = createLogger({ service: 'memory-repeated-episodes-test', level: 'silent' });
const vectorsAvailable = sharedInfra().pgvector;
let sim: Awaited<ReturnType<typeof startLlmSim>>;
let nats: NatsServerHandle;
let server: MemoryServer;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;
let db: pg.Pool;
let writer: TurnBatchWriter;
let vectors: VectorIndex | undefined;

beforeAll(async () => {
  [sim, nats] = await Promise.all([startLlmSim(), startNatsServer()]);
  const url = await createSuiteDatabase('memory_repeated_episodes', { pgvector: vectorsAvailable });
  ({ server, client } = await startTestMemory(
    { databaseUrl: url, natsUrl: nats.url },
    {
      OPENAI_BASE_URL: sim.baseURL,
      OPENAI_API_KEY: SIM_API_KEY,
      MEMORY_EMBEDDING_MODEL: 'sim-embed-1',
      MEMORY_TOOLS_ENABLED: 'false',
      MEMORY_RECALL_HALF_LIFE_DAYS: '1',
    },
    logger,
  ));
  db = new pg.Pool({ connectionString: url, options: '-c search_path=memory', max: 6 });
  writer = new TurnBatchWriter(db, new Set(), () => ({ maxFacts: 10_000, tier: 'default' }));
  const embeddings = new OpenAIEmbeddings({
    baseURL: sim.baseURL,
    apiKey: SIM_API_KEY,
    model: 'sim-embed-1',
    dimensions: 256,
    timeoutMs: 5_000,
  });
  vectors = (await VectorIndex.open(db, embeddings, logger)).index;
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  await db?.end();
  await sim?.stop();
  await nats?.stop();
});

let runs = 0;
function turn(
  tenantId: string,
  summary: string,
  options: { collection?: string; conversationId?: string; runId?: string } = {},
): TurnToStore {
  const runId = options.runId ?? `run-${(runs += 1)}`;
  const finished: TurnFinished = {
    type: 'memory.turn_finished',
    tenantId,
    conversationId: options.conversationId ?? `conv-${runId}`,
    runId,
    firstSeq: 1,
    lastSeq: 2,
    finishedAt: new Date().toISOString(),
  };
  return {
    turn: finished,
    collection: options.collection ?? 'user:alice',
    extraction: Extraction.parse({ episodeSummary: summary, topics: ['faq'] }),
  };
}

interface EpisodeState {
  episode_id: string;
  summary: string;
  occurrences: number;
  conversation_id: string;
  runs: string[];
}

/** The tenant's turn episodes whose summary contains `marker`, with the runs that point at each. */
async function episodes(tenantId: string, marker: string): Promise<EpisodeState[]> {
  const { rows } = await db.query<EpisodeState>(
    `SELECT e.episode_id, e.summary, e.occurrences, e.conversation_id,
       ARRAY(SELECT r.run_id FROM ingested_runs r WHERE r.tenant_id = e.tenant_id AND r.episode_id = e.episode_id ORDER BY r.run_id) AS runs
     FROM episodes e WHERE e.tenant_id = $1 AND e.kind = 'turn' AND e.summary ILIKE '%' || $2 || '%' ORDER BY e.collection, e.created_at`,
    [tenantId, marker],
  );
  return rows;
}

const vectorCount = async (episodeIds: readonly string[]) =>
  Number(
    (
      await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM embeddings_d256 WHERE item_kind = 'episode' AND item_id = ANY($1::uuid[])`,
        [episodeIds],
      )
    ).rows[0]!.n,
  );

describe('repeated turn episodes', () => {
  it('stores a summary said in two conversations once: occurrences 2, both runs point at it, one item to embed', async () => {
    const first = await writer.store([
      turn('acme', 'The user asked for the office opening hours.', { conversationId: 'conv-a', runId: 'run-hours-a' }),
    ]);
    const again = await writer.store([
      turn('acme', 'The user asked for the office opening hours.', { conversationId: 'conv-b', runId: 'run-hours-b' }),
    ]);
    const stored = await episodes('acme', 'opening hours');
    expect(stored).toEqual([
      {
        episode_id: first.turns[0]!.episodeId,
        summary: 'The user asked for the office opening hours.',
        occurrences: 2,
        conversation_id: 'conv-a',
        runs: ['run-hours-a', 'run-hours-b'],
      },
    ]);
    expect(again.turns[0]).toMatchObject({ duplicate: false, episodeId: first.turns[0]!.episodeId });
    expect(first.items.filter((i) => i.kind === 'episode')).toHaveLength(1);
    expect(again.items).toEqual([]);
  });

  it('keeps separate rows per collection and per tenant, and leaves session episodes alone', async () => {
    await writer.store([
      turn('acme', 'The user asked about parking.', { collection: 'user:alice' }),
      turn('acme', 'The user asked about parking.', { collection: 'user:bob' }),
      turn('globex', 'The user asked about parking.'),
    ]);
    expect((await episodes('acme', 'about parking')).map((e) => e.occurrences)).toEqual([1, 1]);
    expect((await episodes('globex', 'about parking')).map((e) => e.occurrences)).toEqual([1]);
    for (const conversation of ['conv-s1', 'conv-s2']) {
      await db.query(
        `INSERT INTO episodes (tenant_id, collection, conversation_id, kind, summary, first_seq, last_seq) VALUES ('acme', 'user:alice', $1, 'session', 'The user asked about parking.', 1, 4)`,
        [conversation],
      );
    }
    const { rows } = await db.query<{ kind: string; n: string }>(
      `SELECT kind, count(*) AS n FROM episodes WHERE tenant_id = 'acme' AND summary = 'The user asked about parking.' GROUP BY kind ORDER BY kind`,
    );
    expect(rows).toEqual([
      { kind: 'session', n: '2' },
      { kind: 'turn', n: '2' },
    ]);
  });

  it('compares summaries ignoring case and runs of white space, not punctuation or other words', async () => {
    const said = [
      'The user asked where to  park the Bike.',
      '  the user asked where to park\tthe bike.\n',
      'THE USER ASKED WHERE TO PARK THE BIKE.',
      'The user asked where to park the bike!',
      'The user asked where to park the bikes.',
    ];
    const { turns, items } = await writer.store(said.map((s) => turn('acme', s)));
    const stored = await episodes('acme', 'the bike');
    expect(stored).toHaveLength(3);
    expect(stored.map((e) => [e.summary, e.occurrences])).toEqual(
      expect.arrayContaining([
        ['The user asked where to  park the Bike.', 3],
        ['The user asked where to park the bike!', 1],
        ['The user asked where to park the bikes.', 1],
      ]),
    );
    expect(new Set(turns.slice(0, 3).map((t) => t.episodeId)).size).toBe(1);
    // Two copies in one batch are merged before the statement: one row, one item, first wording kept.
    expect(
      items
        .filter((i) => i.kind === 'episode')
        .map((i) => i.text)
        .sort(),
    ).toEqual([
      'The user asked where to  park the Bike.',
      'The user asked where to park the bike!',
      'The user asked where to park the bikes.',
    ]);
  });

  it('counts a redelivered turn once', async () => {
    const entry = turn('acme', 'The user asked how to reset a password.', { runId: 'run-reset' });
    await writer.store([entry]);
    const redelivered = await writer.store([entry, entry]);
    expect(redelivered.turns.map((t) => t.duplicate)).toEqual([true, true]);
    expect((await episodes('acme', 'reset a password')).map((e) => [e.occurrences, e.runs])).toEqual([
      [1, ['run-reset']],
    ]);
  });

  it('two batches storing the same new summaries at once end with one row each, both runs linked, no deadlock', async () => {
    for (let round = 0; round < 5; round++) {
      const a = `The user asked about invoice ${round}.`;
      const b = `The user asked about refund ${round}.`;
      // Opposite orders inside the batches: rows still go in key order.
      const [left, right] = await Promise.all([
        writer.store([
          turn('acme', a, { runId: `run-left-a-${round}` }),
          turn('acme', b, { runId: `run-left-b-${round}` }),
        ]),
        writer.store([
          turn('acme', b, { runId: `run-right-b-${round}` }),
          turn('acme', a, { runId: `run-right-a-${round}` }),
        ]),
      ]);
      const stored = [
        ...(await episodes('acme', `invoice ${round}.`)),
        ...(await episodes('acme', `refund ${round}.`)),
      ];
      expect(stored.map((e) => [e.occurrences, e.runs])).toEqual([
        [2, [`run-left-a-${round}`, `run-right-a-${round}`]],
        [2, [`run-left-b-${round}`, `run-right-b-${round}`]],
      ]);
      // Each episode is handed out for embedding by exactly one of the two writers.
      const embedded = [...left.items, ...right.items].filter((i) => i.kind === 'episode').map((i) => i.id);
      expect(embedded.sort()).toEqual(stored.map((e) => e.episode_id).sort());
    }
  });

  it.skipIf(!vectorsAvailable)(
    'embeds a repeated episode once, and recall returns it once, as recent as its last repetition',
    async () => {
      const summary = 'The user asked when the Lyon branch opens on Sundays.';
      const first = await writer.store([
        turn('acme', summary, { collection: 'user:carol', conversationId: 'conv-lyon-1' }),
      ]);
      await vectors!.indexItems(first.items);
      const other = await writer.store([
        turn('acme', 'The user asked when the Oslo branch opens on Sundays.', { collection: 'user:carol' }),
      ]);
      await vectors!.indexItems(other.items);
      // Lyon was first stored 60 days ago, Oslo 30 days ago; then Lyon is asked again today.
      const lyon = first.turns[0]!.episodeId!;
      await db.query(
        `UPDATE episodes SET created_at = now() - interval '60 days', last_seen_at = now() - interval '60 days' WHERE tenant_id = 'acme' AND episode_id = $1`,
        [lyon],
      );
      await db.query(
        `UPDATE episodes SET created_at = now() - interval '30 days', last_seen_at = now() - interval '30 days' WHERE tenant_id = 'acme' AND episode_id = $1`,
        [other.turns[0]!.episodeId],
      );
      const again = await writer.store([
        turn('acme', summary.toUpperCase(), { collection: 'user:carol', conversationId: 'conv-lyon-2' }),
      ]);
      await vectors!.indexItems(again.items);
      expect(again.items).toEqual([]);
      expect(await vectorCount([lyon])).toBe(1);

      const recalled = await client.rpc.recall({
        tenantId: 'acme',
        query: 'when does the branch open on Sundays',
        collectionPrefix: 'user:carol',
        limit: 5,
        tokenBudget: 0,
        conversationId: '',
        includeEpisodes: true,
      });
      const lyons = recalled.items.filter((i) => i.episode?.episodeId === lyon);
      expect(lyons).toHaveLength(1);
      // With a one-day half-life, recency decides between the two: Lyon, seen today, beats Oslo, seen 30 days ago.
      expect(recalled.items[0]!.episode?.episodeId).toBe(lyon);
      expect(recalled.items[0]!.matchedBy.some((m) => m.startsWith('vector#'))).toBe(true);
      const today = new Date().toISOString().slice(0, 10);
      expect(recalled.items[0]!.text).toBe(`earlier (${today}): ${summary}`);
      expect(lyons[0]!.episode).toMatchObject({ occurrences: 2, conversationId: 'conv-lyon-1' });
      expect(lyons[0]!.episode!.lastSeenAt!.getTime()).toBeGreaterThan(
        lyons[0]!.episode!.createdAt!.getTime() + 59 * 86_400_000,
      );
    },
  );

  it("forgetting a subject deletes the shared episode and clears every run's link to it", async () => {
    await writer.store([turn('acme', 'The user asked Zelda about the lease.', { runId: 'run-zelda-1' })]);
    await writer.store([turn('acme', 'the user asked Zelda about the lease.', { runId: 'run-zelda-2' })]);
    const [shared] = await episodes('acme', 'Zelda');
    expect(shared!.runs).toEqual(['run-zelda-1', 'run-zelda-2']);
    const forgot = await client.rpc.forgetSubject({
      tenantId: 'acme',
      subject: 'Zelda',
      collectionPrefix: '',
      actor: 'alice',
      reason: 'privacy request',
    });
    expect(forgot.episodesDeleted).toBe(1);
    expect(await episodes('acme', 'Zelda')).toEqual([]);
    const { rows } = await db.query(
      `SELECT run_id, episode_id FROM ingested_runs WHERE tenant_id = 'acme' AND run_id LIKE 'run-zelda-%' ORDER BY run_id`,
    );
    expect(rows).toEqual([
      { run_id: 'run-zelda-1', episode_id: null },
      { run_id: 'run-zelda-2', episode_id: null },
    ]);
    if (vectorsAvailable) expect(await vectorCount([shared!.episode_id])).toBe(0);
    // Said again later, it is a new episode.
    const later = await writer.store([turn('acme', 'The user asked Zelda about the lease.', { runId: 'run-zelda-3' })]);
    expect(later.items.filter((i) => i.kind === 'episode')).toHaveLength(1);
  });
});
