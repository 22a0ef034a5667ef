import { fileURLToPath } from 'node:url';
import { OpenAIEmbeddings } from '@platform/llm';
import { createLogger, loadMigrations, migrate } from '@platform/service-kit';
import { createSuiteDatabase, sharedInfra } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_SCHEMA } from '../server.js';
import { vectorConnectionSettings, VectorIndex } from './vector-index.js';

// The vector search as recall sends it: nearest current items of the tenant's collection, best
// first, at most `limit`, none below the similarity floor; superseded facts, other collections and
// other tenants are walked past, also when the HNSW walk keeps fewer candidates than they take.
const logger = createLogger({ service: 'memory-vector-search-test', level: 'silent' });
const migrationsDir = fileURLToPath(new URL('../../migrations', import.meta.url));

describe.skipIf(!sharedInfra().pgvector)('vector search', () => {
  let pool: pg.Pool;
  let index: VectorIndex;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    const url = await createSuiteDatabase('memory_vector_search', { pgvector: true });
    // The walk keeps 2 candidates, fewer than the items a search skips: only pgvector's iterative scan finds the rest.
    const options = Object.entries({ search_path: MEMORY_SCHEMA, ...vectorConnectionSettings(2) })
      .map(([k, v]) => `-c ${k}=${v}`)
      .join(' ');
    pool = new pg.Pool({ connectionString: url, options, max: 2 });
    await migrate(pool, MEMORY_SCHEMA, await loadMigrations(migrationsDir, MEMORY_SCHEMA), logger);
    await pool.query('CREATE EXTENSION IF NOT EXISTS vector');
    const embeddings = new OpenAIEmbeddings({
      baseURL: 'http://127.0.0.1:9/v1',
      apiKey: 'unused',
      model: 'm',
      dimensions: 3,
      timeoutMs: 1000,
    });
    index = (await VectorIndex.open(pool, embeddings, logger)).index!;
    const fact = async (name: string, tenant: string, collection: string, vector: string, current = true) => {
      const { rows } = await pool.query<{ fact_id: string }>(
        `INSERT INTO facts (tenant_id, collection, subject, predicate, object, kind, confidence, origin, valid_to) VALUES ($1, $2, $3, 'likes', 'tea', 'fact', 0.9, 'saved', $4) RETURNING fact_id`,
        [tenant, collection, name, current ? null : new Date()],
      );
      ids.set(name, rows[0]!.fact_id);
      await pool.query(
        `INSERT INTO embeddings_d3 (tenant_id, item_kind, item_id, model, embedding) VALUES ($1, 'fact', $2, 'm', $3)`,
        [tenant, rows[0]!.fact_id, vector],
      );
    };
    await fact('nearest', 'acme', 'user:x', '[1,0,0]');
    await fact('superseded', 'acme', 'user:x', '[0.99,0.01,0]', false);
    await fact('other collection', 'acme', 'team:y', '[0.98,0.02,0]');
    await fact('other tenant', 'globex', 'user:x', '[0.97,0.03,0]');
    await fact('second', 'acme', 'user:x', '[0.9,0.1,0]');
    await fact('third', 'acme', 'user:x', '[0.5,0.5,0]');
    await fact('unrelated', 'acme', 'user:x', '[0,1,0]');
    await pool.query('ANALYZE embeddings_d3');
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
  });

  const names = (hits: { id: string }[]) => hits.map((h) => [...ids].find(([, id]) => id === h.id)?.[0]);

  it('returns the nearest current items of the collection, best first, up to the limit', async () => {
    expect(names(await index.search(pool, 'acme', 'user', [1, 0, 0], 2, true, 0.25))).toEqual(['nearest', 'second']);
  });

  it('leaves out neighbours below the similarity floor, and has them when the floor allows', async () => {
    expect(names(await index.search(pool, 'acme', 'user', [1, 0, 0], 10, true, 0.25))).toEqual([
      'nearest',
      'second',
      'third',
    ]);
    expect(names(await index.search(pool, 'acme', 'user', [1, 0, 0], 10, true, -1))).toEqual([
      'nearest',
      'second',
      'third',
      'unrelated',
    ]);
    expect(names(await index.search(pool, 'acme', '', [1, 0, 0], 10, true, 0.25))).toEqual([
      'nearest',
      'other collection',
      'second',
      'third',
    ]);
  });

  // A generic plan of the vector search (PostgreSQL may choose one for a named statement) runs
  // 50-100x slower at 100k facts per tenant: it must be planned for each call's vector.
  it('is planned for each call, never prepared for reuse', async () => {
    const connection = await pool.connect();
    try {
      for (let i = 0; i < 7; i++) await index.search(connection, 'acme', 'user', [1, 0, 0], 2, true, 0.25);
      const { rows } = await connection.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
      expect(rows).toEqual([]);
    } finally {
      connection.release();
    }
  });

  it('gives each item its time for recency', async () => {
    const [hit] = await index.search(pool, 'globex', '', [1, 0, 0], 1, true, 0.25);
    expect(names([hit!])).toEqual(['other tenant']);
    expect(hit!.at).toBeInstanceOf(Date);
  });
});
