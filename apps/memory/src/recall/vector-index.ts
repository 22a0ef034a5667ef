import type { OpenAIEmbeddings } from '@platform/llm';
import type { Logger } from '@platform/service-kit';
import type pg from 'pg';
import { collectionPrefixSql } from '../knowledge/collections.js';
import { ensureVectorTable } from './vector-table.js';

/** Which vector search this process runs, and why (logged at boot, shown in readiness). */
export interface VectorStatus {
  enabled: boolean;
  /** Why vectors are off: no embeddings model configured, or no pgvector in the database. */
  reason: string;
  model?: string;
  dimensions?: number;
}

/**
 * Connection settings the vector search relies on (placeholders until pgvector loads, ignored
 * without it): the iterative scan walks the graph on until enough rows pass the search's filters,
 * and `hnsw.ef_search` bounds the candidates one walk keeps (pgvector's default is 40; recall takes
 * 20, and the walk's blocks and CPU grow with it).
 */
export function vectorConnectionSettings(efSearch: number): Record<string, string> {
  return { 'hnsw.iterative_scan': 'relaxed_order', 'hnsw.ef_search': String(efSearch) };
}

const literal = (vector: readonly number[]): string => `[${vector.join(',')}]`;

/**
 * Embeddings of current facts and episode summaries in pgvector (HNSW, cosine). The table's
 * name carries the dimension (`embeddings_d256`) because a vector column's dimension is fixed,
 * and it is created here at boot rather than by a migration: it exists only where the extension
 * does, and only for the configured dimension (vector-table.ts: partitioned by tenant like facts). Rows name their model, so a model change makes
 * old rows invisible until the backfill re-embeds them.
 */
export class VectorIndex {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly embeddings: OpenAIEmbeddings,
    private readonly table: string,
    private readonly logger: Logger,
  ) {}

  get model(): string {
    return this.embeddings.model;
  }

  /** Opens the index, or says why vectors are unavailable (the service then recalls by keyword + trigram). */
  static async open(
    pool: pg.Pool,
    embeddings: OpenAIEmbeddings | undefined,
    logger: Logger,
  ): Promise<{ index: VectorIndex | undefined; status: VectorStatus }> {
    if (!embeddings)
      return { index: undefined, status: { enabled: false, reason: 'MEMORY_EMBEDDING_MODEL is not set' } };
    const dims = embeddings.dimensions;
    const table = `embeddings_d${dims}`;
    const client = await pool.connect();
    try {
      const available = await client.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
      if (available.rowCount === 0)
        return {
          index: undefined,
          status: { enabled: false, reason: 'the pgvector extension is not installed on the database server' },
        };
      await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`memory-vector-ddl`]);
      try {
        await client.query('CREATE EXTENSION IF NOT EXISTS vector');
        await ensureVectorTable(client, table, dims);
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`memory-vector-ddl`]);
      }
    } catch (err) {
      return {
        index: undefined,
        status: { enabled: false, reason: `pgvector could not be set up: ${(err as Error).message}` },
      };
    } finally {
      client.release();
    }
    return {
      index: new VectorIndex(pool, embeddings, table, logger),
      status: { enabled: true, reason: 'pgvector HNSW (cosine)', model: embeddings.model, dimensions: dims },
    };
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<number[]> {
    const [vector] = await this.embeddings.embed([text], signal);
    return vector!;
  }

  /** Embeds and stores the given facts and episodes (those already embedded with this model are skipped). */
  async indexNew(tenantId: string, factIds: readonly string[], episodeIds: readonly string[]): Promise<number> {
    if (factIds.length === 0 && episodeIds.length === 0) return 0;
    const { rows } = await this.pool.query<{ kind: string; id: string; text: string }>(
      `SELECT 'fact' AS kind, fact_id::text AS id, search_text AS text FROM facts WHERE tenant_id = $1 AND fact_id = ANY($2::uuid[])
       UNION ALL
       SELECT 'episode', episode_id::text, summary FROM episodes WHERE tenant_id = $1 AND episode_id = ANY($3::uuid[])`,
      [tenantId, factIds, episodeIds],
    );
    return this.store(rows.map((r) => ({ tenantId, ...r })));
  }

  /** Embeds the given items (with one embeddings request) and stores their vectors: for writers that still hold the texts. */
  async indexItems(items: readonly { tenantId: string; kind: string; id: string; text: string }[]): Promise<number> {
    return this.store(items);
  }

  /** Embeds up to `limit` current facts and episodes that have no vector for this model yet. */
  async backfill(limit: number): Promise<number> {
    const { rows } = await this.pool.query<{ tenantId: string; kind: string; id: string; text: string }>(
      `(SELECT f.tenant_id AS "tenantId", 'fact' AS kind, f.fact_id::text AS id, f.search_text AS text FROM facts f
        WHERE f.valid_to IS NULL AND NOT EXISTS (SELECT 1 FROM ${this.table} e WHERE e.tenant_id = f.tenant_id AND e.item_kind = 'fact' AND e.item_id = f.fact_id AND e.model = $1)
        LIMIT $2)
       UNION ALL
       (SELECT p.tenant_id, 'episode', p.episode_id::text, p.summary FROM episodes p
        WHERE NOT EXISTS (SELECT 1 FROM ${this.table} e WHERE e.tenant_id = p.tenant_id AND e.item_kind = 'episode' AND e.item_id = p.episode_id AND e.model = $1)
        LIMIT $2)`,
      [this.model, limit],
    );
    return this.store(rows.slice(0, limit));
  }

  private async store(items: readonly { tenantId: string; kind: string; id: string; text: string }[]): Promise<number> {
    if (items.length === 0) return 0;
    const vectors = await this.embeddings.embed(items.map((i) => i.text));
    await this.pool.query(
      `INSERT INTO ${this.table} (tenant_id, item_kind, item_id, model, embedding)
       SELECT t, k, i::uuid, $4, v::vector FROM unnest($1::text[], $2::text[], $3::text[], $5::text[]) AS x(t, k, i, v)
       ON CONFLICT (tenant_id, item_kind, item_id) DO UPDATE SET model = EXCLUDED.model, embedding = EXCLUDED.embedding`,
      [
        items.map((i) => i.tenantId),
        items.map((i) => i.kind),
        items.map((i) => i.id),
        this.model,
        vectors.map(literal),
      ],
    );
    this.logger.debug({ count: items.length }, 'embedded memory items');
    return items.length;
  }

  /** Items nearest to the vector among the tenant's current facts (and episodes), best first, with their times (valid_from, last_seen_at). */
  async search(
    db: Pick<pg.Pool, 'query'>,
    tenantId: string,
    prefix: string,
    vector: readonly number[],
    limit: number,
    includeEpisodes: boolean,
    minSimilarity: number,
  ): Promise<{ kind: 'fact' | 'episode'; id: string; at: Date }[]> {
    // The HNSW scan (`near`) walks the graph nearest first; an item's time comes with the check
    // that it is current and in the collection, evaluated as each neighbour is read, and `current`
    // stops reading at `limit` current items. The graph walk keeps `hnsw.ef_search` candidates
    // (a connection setting, vectorConnectionSettings: the candidate count), and pgvector's
    // iterative scan walks on only while fewer than `limit` of them are current, at most `4 x
    // limit` neighbours. The similarity floor is applied to those `limit` items, not while
    // reading: a query with few close neighbours stops at `limit` current items instead of
    // walking on to `4 x limit` in search of close ones (they would only come farther away).
    // Unlike recall's other statements it is sent unnamed, so it is planned for every call's
    // values: a generic plan of it (which PostgreSQL may pick for a named statement) executed in
    // 180-310 ms at 100k facts per tenant, against 3 ms planned for the call (bench/memory README).
    const { rows } = await db.query<{ kind: 'fact' | 'episode'; id: string; at: Date }>(
      `SELECT kind, id, at FROM (
         SELECT kind, id, at, distance FROM (
           SELECT e.item_kind AS kind, e.item_id::text AS id, e.embedding <=> $3::vector AS distance,
             CASE WHEN e.item_kind = 'fact'
               THEN (SELECT f.valid_from FROM facts f WHERE f.tenant_id = $1 AND f.fact_id = e.item_id AND f.valid_to IS NULL AND ${collectionPrefixSql('$2', 'f.collection')})
               ELSE (SELECT p.last_seen_at FROM episodes p WHERE p.tenant_id = $1 AND p.episode_id = e.item_id AND ${collectionPrefixSql('$2', 'p.collection')}) END AS at
           FROM ${this.table} e
           WHERE e.tenant_id = $1 AND e.model = $4 AND ($6 OR e.item_kind = 'fact')
           ORDER BY e.embedding <=> $3::vector
           LIMIT $5 * 4) AS near
         WHERE at IS NOT NULL
         LIMIT $5) AS current
       WHERE distance <= 1 - $7::double precision
       ORDER BY distance`,
      [tenantId, prefix, literal(vector), this.model, limit, includeEpisodes, minSimilarity],
    );
    return rows;
  }

  /** Drops the vectors of deleted items. */
  async forget(client: pg.PoolClient, tenantId: string, ids: readonly string[]): Promise<void> {
    if (ids.length)
      await client.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND item_id = ANY($2::uuid[])`, [
        tenantId,
        ids,
      ]);
  }
}
