import type pg from 'pg';

/**
 * Creates the embeddings table for one dimension (`embeddings_d256`) if it is missing, partitioned
 * by tenant hash like `facts` and `episodes` (as many partitions as `facts` has, migration 0004):
 * each partition has its own HNSW graph, so a tenant's nearest-neighbour search walks a graph of
 * the few tenants that share its partition instead of skipping every other tenant's vectors.
 * A table created before partitioning is rewritten once into the partitioned layout, and its HNSW
 * index rebuilt over the copied vectors. The caller holds the vector DDL lock.
 */
export async function ensureVectorTable(client: pg.PoolClient, table: string, dims: number): Promise<void> {
  const { rows } = await client.query<{ relkind: string }>(`SELECT relkind FROM pg_class WHERE oid = to_regclass($1)`, [
    table,
  ]);
  const existing = rows[0]?.relkind;
  if (existing === 'p') {
    await client.query(`CREATE INDEX IF NOT EXISTS ${table}_hnsw ON ${table} USING hnsw (embedding vector_cosine_ops)`);
    return;
  }
  const partitions = await factPartitions(client);
  await client.query('BEGIN');
  try {
    if (existing === 'r') {
      await client.query(`ALTER TABLE ${table} RENAME TO ${table}_unpartitioned`);
      await client.query(`ALTER INDEX ${table}_pkey RENAME TO ${table}_unpartitioned_pkey`);
      await client.query(`DROP INDEX IF EXISTS ${table}_hnsw`);
    }
    await client.query(
      `CREATE TABLE ${table} (
         tenant_id  text NOT NULL,
         item_kind  text NOT NULL CHECK (item_kind IN ('fact', 'episode')),
         item_id    uuid NOT NULL,
         model      text NOT NULL,
         embedding  vector(${dims}) NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (tenant_id, item_kind, item_id)) PARTITION BY HASH (tenant_id)`,
    );
    for (let i = 0; i < partitions; i++) {
      await client.query(
        `CREATE TABLE ${table}_p${String(i).padStart(2, '0')} PARTITION OF ${table} FOR VALUES WITH (MODULUS ${partitions}, REMAINDER ${i})`,
      );
    }
    if (existing === 'r') {
      await client.query(
        `INSERT INTO ${table} SELECT tenant_id, item_kind, item_id, model, embedding, created_at FROM ${table}_unpartitioned`,
      );
      await client.query(`DROP TABLE ${table}_unpartitioned`);
    }
    await client.query(`CREATE INDEX ${table}_hnsw ON ${table} USING hnsw (embedding vector_cosine_ops)`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** How many hash partitions `facts` has (the embeddings table follows it, so both split tenants alike). */
async function factPartitions(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_inherits WHERE inhparent = to_regclass('facts')`,
  );
  const n = Number(rows[0]!.n);
  if (n === 0) throw new Error('memory.facts is not partitioned: migration 0004 has not run');
  return n;
}
