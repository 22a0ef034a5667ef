import { compositeKey } from '@platform/contracts';
import type pg from 'pg';
import type { CandidateFact } from '../extraction/extractor.js';
import { collectionPrefixSql } from './collections.js';

/** A (tenant, run): the key of one ingested turn. */
export interface RunKey {
  tenantId: string;
  runId: string;
}

/** What one turn of a batch asks for its supersession candidates. */
export interface CandidateQuery {
  tenantId: string;
  collection: string;
  /** The turn's user text. */
  text: string;
}

/** Words of a text as an OR full-text query ("a | b | c"), or undefined when it has none. */
export function orQuery(text: string, maxWords = 40): string | undefined {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])].slice(0, maxWords);
  return words.length ? words.join(' | ') : undefined;
}

export const runKey = (key: RunKey): string => compositeKey(key.tenantId, key.runId);

/**
 * What ingestion reads before it extracts, for a whole batch of turns at once (one statement
 * each, every row scoped by its own tenant): which turns are already stored, and the current facts
 * each turn may supersede.
 */
export class TurnStore {
  constructor(private readonly pool: pg.Pool) {}

  /** The keys (see {@link runKey}) of the given turns that are already stored. */
  async ingestedAmong(keys: readonly RunKey[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const { rows } = await this.pool.query<{ tenant_id: string; run_id: string }>(
      `SELECT r.tenant_id, r.run_id FROM ingested_runs r
       JOIN unnest($1::text[], $2::text[]) AS k(tenant_id, run_id) ON r.tenant_id = k.tenant_id AND r.run_id = k.run_id`,
      [keys.map((k) => k.tenantId), keys.map((k) => k.runId)],
    );
    return new Set(rows.map((r) => runKey({ tenantId: r.tenant_id, runId: r.run_id })));
  }

  /**
   * For each query, the current facts of its tenant's collection (and below it) that share words
   * with its text, best first: what a new fact of that turn may supersede.
   */
  async candidates(queries: readonly CandidateQuery[], limit: number): Promise<CandidateFact[][]> {
    const out: CandidateFact[][] = queries.map(() => []);
    const asked = queries.flatMap((q, i) => {
      const query = orQuery(q.text);
      return query ? [{ i, tenantId: q.tenantId, collection: q.collection, query }] : [];
    });
    if (asked.length === 0) return out;
    const { rows } = await this.pool.query<{
      i: number;
      fact_id: string;
      subject: string;
      predicate: string;
      object: string;
    }>(
      `SELECT q.i, f.fact_id, f.subject, f.predicate, f.object
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) AS q(i, tenant, wanted, query)
       CROSS JOIN LATERAL (
         SELECT fact_id, subject, predicate, object, ts_rank(search_vector, to_tsquery('english', q.query)) AS rank, created_at FROM facts
         WHERE tenant_id = q.tenant AND ${collectionPrefixSql('q.wanted')} AND valid_to IS NULL AND search_vector @@ to_tsquery('english', q.query)
         ORDER BY rank DESC, created_at DESC LIMIT $5) AS f
       ORDER BY q.i, f.rank DESC, f.created_at DESC`,
      [
        asked.map((a) => a.i),
        asked.map((a) => a.tenantId),
        asked.map((a) => a.collection),
        asked.map((a) => a.query),
        limit,
      ],
    );
    for (const r of rows)
      out[r.i]!.push({ factId: r.fact_id, subject: r.subject, predicate: r.predicate, object: r.object });
    return out;
  }
}
