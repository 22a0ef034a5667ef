// Seeds the bench's tenants with synthetic facts (and, for hybrid, their llm-sim vectors) as a bulk
// load: the search indexes (full-text GIN, HNSW) are dropped first and rebuilt once over all rows
// from their own saved definitions, which is far faster than growing them row by row. The other
// indexes and the vocabulary triggers stay, so the result is what ingestion would have built.
import type pg from 'pg';
import { random, syntheticFact } from './corpus.js';

export const TENANTS = 10;
const BATCH = 2_000;
const EMBED_BATCH = 500;

export type Embed = (texts: string[]) => Promise<number[][]>;

/** The definitions of the tables' GIN and HNSW indexes (partitioned parents only, their partitions follow). */
async function searchIndexes(db: pg.Pool, tables: readonly string[]): Promise<{ name: string; definition: string }[]> {
  const { rows } = await db.query<{ name: string; definition: string }>(
    `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname AND c.relnamespace = 'memory'::regnamespace
     WHERE i.schemaname = 'memory' AND i.tablename = ANY($1::text[]) AND (i.indexdef LIKE '%USING gin%' OR i.indexdef LIKE '%USING hnsw%')
       AND NOT c.relispartition`,
    [tables],
  );
  // A partitioned parent's definition reads `ON ONLY` (the parent alone); rebuilt without it, the
  // index is created on every partition too.
  return rows.map((r) => ({ name: r.name, definition: r.definition.replace(' ON ONLY ', ' ON ') }));
}

export async function seed(
  db: pg.Pool,
  perTenant: number,
  embed: Embed | undefined,
  log: (line: string) => void,
): Promise<void> {
  const indexes = await searchIndexes(db, ['facts', ...(embed ? ['embeddings_d256'] : [])]);
  for (const index of indexes) await db.query(`DROP INDEX memory.${index.name}`);
  const loading = performance.now();
  for (let t = 0; t < TENANTS; t++) {
    const rnd = random(1_000 + t);
    for (let start = 0; start < perTenant; start += BATCH) {
      const facts = Array.from({ length: Math.min(BATCH, perTenant - start) }, (_, i) => syntheticFact(start + i, rnd));
      const { rows } = await db.query<{ fact_id: string; search_text: string }>(
        `INSERT INTO facts (tenant_id, collection, subject, predicate, object, kind, confidence, origin, valid_from)
         SELECT $1, 'user:' || $1, s, p, o, 'fact', 0.9, 'saved', now() - (random() * interval '365 days')
         FROM unnest($2::text[], $3::text[], $4::text[]) AS x(s, p, o)
         RETURNING fact_id, search_text`,
        [`tenant-${t}`, facts.map((f) => f.subject), facts.map((f) => f.predicate), facts.map((f) => f.object)],
      );
      if (embed) await storeVectors(db, `tenant-${t}`, rows, embed);
    }
  }
  log(`loaded ${TENANTS} x ${perTenant} facts${embed ? ' with vectors' : ''} in ${seconds(loading)} s`);
  const client = await db.connect();
  try {
    await client.query(`SET maintenance_work_mem = '1GB'`);
    for (const index of indexes) {
      const building = performance.now();
      await client.query(index.definition);
      log(`built ${index.name} over ${TENANTS * perTenant} rows in ${seconds(building)} s`);
    }
  } finally {
    client.release();
  }
  // VACUUM as autovacuum would after such a burst: visibility map set and statistics fresh.
  await db.query('VACUUM ANALYZE');
}

async function storeVectors(
  db: pg.Pool,
  tenantId: string,
  rows: readonly { fact_id: string; search_text: string }[],
  embed: Embed,
): Promise<void> {
  for (let i = 0; i < rows.length; i += EMBED_BATCH) {
    const slice = rows.slice(i, i + EMBED_BATCH);
    const vectors = await embed(slice.map((r) => r.search_text));
    await db.query(
      `INSERT INTO embeddings_d256 (tenant_id, item_kind, item_id, model, embedding)
       SELECT $1, 'fact', id::uuid, 'sim-embed-1', v::vector FROM unnest($2::text[], $3::text[]) AS x(id, v)`,
      [tenantId, slice.map((r) => r.fact_id), vectors.map((v) => `[${v.join(',')}]`)],
    );
  }
}

const seconds = (since: number): string => ((performance.now() - since) / 1000).toFixed(0);
