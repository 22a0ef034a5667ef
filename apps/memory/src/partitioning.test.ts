import { fileURLToPath } from 'node:url';
import { OpenAIEmbeddings } from '@platform/llm';
import { createLogger, loadMigrations, migrate } from '@platform/service-kit';
import { createSuiteDatabase, sharedInfra } from '@platform/testing/vitest';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { VectorIndex } from './recall/vector-index.js';
import { MEMORY_SCHEMA } from './server.js';

// Upgrading to the tenant-partitioned layout (migration 0004, and the embeddings table at boot)
// keeps every row, and the tables work as before afterwards.
const logger = createLogger({ service: 'memory-partitioning-test', level: 'silent' });
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));
const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()));
});

async function databaseAt(version: number, options: { pgvector: boolean }): Promise<pg.Pool> {
  const url = await createSuiteDatabase('memory_partitioning', options);
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

const migrateAll = async (pool: pg.Pool) =>
  migrate(pool, MEMORY_SCHEMA, await loadMigrations(migrationsDir, MEMORY_SCHEMA), logger);
const relkind = async (pool: pg.Pool, table: string) =>
  (await pool.query<{ relkind: string }>(`SELECT relkind FROM pg_class WHERE oid = to_regclass($1)`, [table])).rows[0]
    ?.relkind;
const terms = async (pool: pg.Pool, tenant: string) =>
  (
    await pool.query<{ term: string }>(`SELECT term FROM recall_terms WHERE tenant_id = $1 ORDER BY term`, [tenant])
  ).rows.map((r) => r.term);

describe('partitioning knowledge by tenant', () => {
  it('migration 0004 keeps every fact and episode, and keys, supersession and the vocabulary work as before', async () => {
    const pool = await databaseAt(3, { pgvector: false });
    const facts = `INSERT INTO facts (tenant_id, collection, subject, predicate, object, kind, confidence, origin) VALUES ($1, 'user:x', $2, 'lives_in', $3, 'fact', 0.9, 'saved') RETURNING fact_id`;
    const paris = (await pool.query<{ fact_id: string }>(facts, ['acme', 'Ann', 'Paris'])).rows[0]!.fact_id;
    const berlin = (await pool.query<{ fact_id: string }>(facts, ['acme', 'Ann', 'Berlin'])).rows[0]!.fact_id;
    await pool.query(
      `UPDATE facts SET valid_to = now(), superseded_by = $2 WHERE tenant_id = 'acme' AND fact_id = $1`,
      [paris, berlin],
    );
    await pool.query(facts, ['globex', 'Zed', 'Oslo']);
    await pool.query(
      `INSERT INTO episodes (tenant_id, collection, conversation_id, kind, summary, first_seq, last_seq) VALUES ('acme', 'user:x', 'c1', 'session', 'Ann moved to Berlin', 1, 4)`,
    );
    const before = (await pool.query(`SELECT * FROM facts ORDER BY fact_id`)).rows;

    await migrateAll(pool);

    expect(await relkind(pool, 'facts')).toBe('p');
    expect(await relkind(pool, 'episodes')).toBe('p');
    expect((await pool.query(`SELECT * FROM facts ORDER BY fact_id`)).rows).toEqual(before);
    expect((await pool.query(`SELECT summary FROM episodes WHERE tenant_id = 'acme'`)).rows).toEqual([
      { summary: 'Ann moved to Berlin' },
    ]);
    // Keys still hold: the same fact id, and the same session episode, cannot be stored twice.
    await expect(
      pool.query(
        `INSERT INTO facts (tenant_id, fact_id, collection, subject, predicate, object, kind, confidence, origin) VALUES ('acme', $1, 'user:x', 'A', 'b', 'c', 'fact', 1, 'saved')`,
        [berlin],
      ),
    ).rejects.toThrow(/duplicate key/);
    const again = await pool.query(
      `INSERT INTO episodes (tenant_id, collection, conversation_id, kind, summary, first_seq, last_seq) VALUES ('acme', 'user:x', 'c1', 'session', 'again', 1, 4) ON CONFLICT DO NOTHING`,
    );
    expect(again.rowCount).toBe(0);
    // The vocabulary triggers follow the new tables: inserts add words, deletes take away unused ones.
    await pool.query(facts, ['globex', 'Zed', 'Trondheim']);
    expect(await terms(pool, 'globex')).toContain('trondheim');
    await pool.query(`DELETE FROM facts WHERE tenant_id = 'globex' AND object = 'Trondheim'`);
    expect(await terms(pool, 'globex')).toEqual(['lives', 'oslo', 'zed']);
    expect(await terms(pool, 'acme')).toEqual(expect.arrayContaining(['ann', 'berlin', 'moved', 'paris']));
  });

  it.skipIf(!sharedInfra().pgvector)(
    'an unpartitioned embeddings table is rewritten into partitions at boot, its vectors kept and indexed',
    async () => {
      const pool = await databaseAt(Number.MAX_SAFE_INTEGER, { pgvector: true });
      await pool.query('CREATE EXTENSION IF NOT EXISTS vector');
      // The layout memory created before partitioning.
      await pool.query(`CREATE TABLE embeddings_d3 (tenant_id text NOT NULL, item_kind text NOT NULL CHECK (item_kind IN ('fact', 'episode')), item_id uuid NOT NULL,
      model text NOT NULL, embedding vector(3) NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (tenant_id, item_kind, item_id))`);
      await pool.query(`CREATE INDEX embeddings_d3_hnsw ON embeddings_d3 USING hnsw (embedding vector_cosine_ops)`);
      await pool.query(
        `INSERT INTO embeddings_d3 (tenant_id, item_kind, item_id, model, embedding) VALUES ('acme', 'fact', gen_random_uuid(), 'm', '[1,0,0]'), ('globex', 'episode', gen_random_uuid(), 'm', '[0,1,0]')`,
      );
      const before = (await pool.query(`SELECT * FROM embeddings_d3 ORDER BY tenant_id`)).rows;
      const embeddings = new OpenAIEmbeddings({
        baseURL: 'http://127.0.0.1:9/v1',
        apiKey: 'unused',
        model: 'm',
        dimensions: 3,
        timeoutMs: 1000,
      });

      const { status } = await VectorIndex.open(pool, embeddings, logger);
      expect(status).toMatchObject({ enabled: true, dimensions: 3 });
      expect(await relkind(pool, 'embeddings_d3')).toBe('p');
      expect((await pool.query(`SELECT * FROM embeddings_d3 ORDER BY tenant_id`)).rows).toEqual(before);
      const { rows } = await pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_inherits WHERE inhparent = to_regclass('embeddings_d3_hnsw')`,
      );
      expect(Number(rows[0]!.n)).toBe(32);
      // A second boot finds the partitioned table and leaves it as it is.
      await VectorIndex.open(pool, embeddings, logger);
      expect((await pool.query(`SELECT * FROM embeddings_d3 ORDER BY tenant_id`)).rows).toEqual(before);
    },
  );
});
