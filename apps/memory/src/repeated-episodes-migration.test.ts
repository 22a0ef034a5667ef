import { fileURLToPath } from 'node:url';
import { OpenAIEmbeddings } from '@platform/llm';
import { createLogger, loadMigrations, migrate } from '@platform/service-kit';
import { createSuiteDatabase, pgvectorModes } from '@platform/testing/vitest';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { VectorIndex } from './recall/vector-index.js';
import { MEMORY_SCHEMA } from './server.js';

// Migration 0005 merges the turn episodes stored more than once before it (keep the oldest, sum
// the occurrences, latest last_seen_at, runs repointed, the others and their vectors deleted),
// then makes the summary key unique.
const logger = createLogger({ service: 'memory-repeated-episodes-migration-test', level: 'silent' });
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));
const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()));
});

async function databaseAt(version: number, options: { pgvector: boolean }): Promise<pg.Pool> {
  const url = await createSuiteDatabase('memory_episodes_once', options);
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${MEMORY_SCHEMA}`, max: 2 });
  pools.push(pool);
  const all = await loadMigrations(migrationsDir, MEMORY_SCHEMA);
  await migrate(
    pool,
    MEMORY_SCHEMA,
    all.filter((m) => m.version <= version),
    logger,
  );
  return pool;
}

describe.each(pgvectorModes())('migration 0005 ($name)', (mode) => {
  it.skipIf(!mode.available)(
    'merges existing duplicate turn episodes into the oldest, repoints their runs and drops their vectors',
    async () => {
      const pool = await databaseAt(4, { pgvector: mode.pgvector });
      let vectorTable: string | undefined;
      if (mode.pgvector) {
        const embeddings = new OpenAIEmbeddings({
          baseURL: 'http://127.0.0.1:9/v1',
          apiKey: 'unused',
          model: 'm',
          dimensions: 3,
          timeoutMs: 1000,
        });
        expect((await VectorIndex.open(pool, embeddings, logger)).status.enabled).toBe(true);
        vectorTable = 'embeddings_d3';
      }
      // The state before: one episode (and one ingested run) per turn, repeats included.
      const turnEpisode = async (
        tenant: string,
        collection: string,
        run: string,
        summary: string,
        daysAgo: number,
        kind = 'turn',
      ) => {
        if (kind === 'turn')
          await pool.query(
            `INSERT INTO ingested_runs (tenant_id, run_id, conversation_id, facts_stored) VALUES ($1, $2, $3, 0)`,
            [tenant, run, `conv-${run}`],
          );
        const { rows } = await pool.query<{ episode_id: string }>(
          `INSERT INTO episodes (tenant_id, collection, conversation_id, kind, summary, first_seq, last_seq, run_id, created_at)
         VALUES ($1, $2, $3, $4, $5, 1, 2, $6, now() - make_interval(days => $7)) RETURNING episode_id`,
          [tenant, collection, `conv-${run}`, kind, summary, kind === 'turn' ? run : null, daysAgo],
        );
        const id = rows[0]!.episode_id;
        if (vectorTable)
          await pool.query(
            `INSERT INTO ${vectorTable} (tenant_id, item_kind, item_id, model, embedding) VALUES ($1, 'episode', $2, 'm', '[1,0,0]')`,
            [tenant, id],
          );
        return id;
      };
      const oldest = await turnEpisode('acme', 'user:x', 'r1', 'The user asked for the opening hours.', 10);
      const middle = await turnEpisode('acme', 'user:x', 'r2', 'the user asked for the  opening hours.', 5);
      const newest = await turnEpisode('acme', 'user:x', 'r3', 'THE USER ASKED FOR THE OPENING HOURS.', 1);
      const otherCollection = await turnEpisode('acme', 'user:y', 'r4', 'The user asked for the opening hours.', 3);
      const otherTenant = await turnEpisode('globex', 'user:x', 'r5', 'The user asked for the opening hours.', 3);
      const distinct = await turnEpisode('acme', 'user:x', 'r6', 'The user asked for the opening hours!', 2);
      const session1 = await turnEpisode('acme', 'user:x', 's1', 'The user asked for the opening hours.', 2, 'session');
      const session2 = await turnEpisode('acme', 'user:x', 's2', 'The user asked for the opening hours.', 1, 'session');
      const newestSeen = (
        await pool.query<{ created_at: Date }>(
          `SELECT created_at FROM episodes WHERE tenant_id = 'acme' AND episode_id = $1`,
          [newest],
        )
      ).rows[0]!.created_at;

      await migrate(pool, MEMORY_SCHEMA, await loadMigrations(migrationsDir, MEMORY_SCHEMA), logger);

      const { rows: episodes } = await pool.query<{
        tenant_id: string;
        episode_id: string;
        kind: string;
        occurrences: number;
        last_seen_at: Date;
        created_at: Date;
      }>(
        `SELECT tenant_id, episode_id, kind, occurrences, last_seen_at, created_at FROM episodes ORDER BY tenant_id, kind, created_at`,
      );
      const byId = new Map(episodes.map((e) => [e.episode_id, e]));
      expect(new Set(byId.keys())).toEqual(
        new Set([oldest, otherCollection, otherTenant, distinct, session1, session2]),
      );
      expect(byId.get(oldest)).toMatchObject({ occurrences: 3, last_seen_at: newestSeen });
      for (const id of [otherCollection, otherTenant, distinct, session1, session2])
        expect(byId.get(id)!.occurrences).toBe(1);
      // An episode that was never repeated was last seen when it was stored.
      expect(byId.get(distinct)!.last_seen_at).toEqual(byId.get(distinct)!.created_at);

      const { rows: runs } = await pool.query<{ run_id: string; episode_id: string | null }>(
        `SELECT run_id, episode_id FROM ingested_runs ORDER BY run_id`,
      );
      expect(runs).toEqual([
        { run_id: 'r1', episode_id: oldest },
        { run_id: 'r2', episode_id: oldest },
        { run_id: 'r3', episode_id: oldest },
        { run_id: 'r4', episode_id: otherCollection },
        { run_id: 'r5', episode_id: otherTenant },
        { run_id: 'r6', episode_id: distinct },
      ]);
      if (vectorTable) {
        const { rows: vectors } = await pool.query<{ item_id: string }>(
          `SELECT item_id FROM ${vectorTable} ORDER BY item_id`,
        );
        expect(new Set(vectors.map((v) => v.item_id))).toEqual(
          new Set([oldest, otherCollection, otherTenant, distinct, session1, session2]),
        );
        expect(vectors.map((v) => v.item_id)).not.toContain(middle);
      }
      // The vocabulary keeps the merged summary's words (the kept row still has them).
      const { rows: terms } = await pool.query<{ term: string }>(
        `SELECT term FROM recall_terms WHERE tenant_id = 'acme' AND term IN ('opening', 'hours') ORDER BY term`,
      );
      expect(terms.map((t) => t.term)).toEqual(['hours', 'opening']);
      // From now on the key is unique: a plain insert of a repeat is refused.
      await expect(
        pool.query(
          `INSERT INTO episodes (tenant_id, collection, conversation_id, kind, summary, first_seq, last_seq) VALUES ('acme', 'user:x', 'c', 'turn', ' the user ASKED for the opening hours. ', 1, 2)`,
        ),
      ).rejects.toThrow(/duplicate key value violates unique constraint/);
    },
  );
});
