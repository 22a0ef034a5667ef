import type { TurnFinished } from '@platform/contracts';
import type pg from 'pg';
import type { Extraction } from '../extraction/extraction-schema.js';
import type { CandidateFact } from '../extraction/extractor.js';
import { collectionPrefixSql } from './collections.js';
import { writeFact, type NewFact } from './fact-writer.js';

export interface StoredTurn {
  duplicate: boolean;
  factIds: string[];
  supersededIds: string[];
  episodeId: string | undefined;
}

const snake = (text: string): string =>
  text
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 50) || 'general';

/** Words of a text as an OR full-text query ("a | b | c"), or undefined when it has none. */
export function orQuery(text: string, maxWords = 40): string | undefined {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])].slice(0, maxWords);
  return words.length ? words.join(' | ') : undefined;
}

/**
 * Writes a turn's extracted knowledge in one transaction, with the (tenant, run) row that makes
 * ingestion idempotent: a turn already stored (a redelivery after a crash between commit and
 * ack) writes nothing and reports `duplicate`.
 */
export class TurnStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly singleValuedPredicates: ReadonlySet<string>,
  ) {}

  async isIngested(tenantId: string, runId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM ingested_runs WHERE tenant_id = $1 AND run_id = $2', [tenantId, runId]);
    return (rowCount ?? 0) > 0;
  }

  /** Current facts of the collection (and below it) that share words with the turn: what a new fact may supersede. */
  async candidates(tenantId: string, collection: string, text: string, limit: number): Promise<CandidateFact[]> {
    const query = orQuery(text);
    if (!query) return [];
    const { rows } = await this.pool.query<{ fact_id: string; subject: string; predicate: string; object: string }>(
      `SELECT fact_id, subject, predicate, object FROM facts
       WHERE tenant_id = $1 AND ${collectionPrefixSql('$2')} AND valid_to IS NULL AND search_vector @@ to_tsquery('english', $3)
       ORDER BY ts_rank(search_vector, to_tsquery('english', $3)) DESC, created_at DESC LIMIT $4`,
      [tenantId, collection, query, limit],
    );
    return rows.map((r) => ({ factId: r.fact_id, subject: r.subject, predicate: r.predicate, object: r.object }));
  }

  async store(turn: TurnFinished, collection: string, extraction: Extraction): Promise<StoredTurn> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const claimed = await client.query('INSERT INTO ingested_runs (tenant_id, run_id, conversation_id, facts_stored) VALUES ($1, $2, $3, 0) ON CONFLICT DO NOTHING', [turn.tenantId, turn.runId, turn.conversationId]);
      if (claimed.rowCount === 0) {
        await client.query('ROLLBACK');
        return { duplicate: true, factIds: [], supersededIds: [], episodeId: undefined };
      }
      for (const entity of extraction.entities) {
        await client.query(
          `INSERT INTO entities (tenant_id, collection, name, entity_type, facets, origin) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (tenant_id, collection, lower(name)) DO UPDATE
             SET facets = entities.facets || EXCLUDED.facets, entity_type = EXCLUDED.entity_type, updated_at = now(),
                 origin = CASE WHEN entities.origin = 'conversation' THEN 'conversation' ELSE EXCLUDED.origin END`,
          [turn.tenantId, collection, entity.name, entity.type, JSON.stringify(entity.facets), entity.fromTool ? 'tool' : 'conversation'],
        );
      }
      const base = { tenantId: turn.tenantId, collection, origin: 'extracted' as const, conversationId: turn.conversationId, runId: turn.runId };
      const facts: NewFact[] = [
        ...extraction.facts.map((f) => ({
          ...base,
          subject: f.subject,
          predicate: f.predicate,
          object: f.object,
          kind: 'fact' as const,
          confidence: f.confidence,
          messageSeq: f.sourceSeq,
          singleValued: f.singleValued || this.singleValuedPredicates.has(f.predicate),
          supersedes: f.supersedes,
        })),
        // A preference holds one value per topic: a new one replaces the old.
        ...extraction.preferences.map((p) => ({
          ...base,
          subject: p.subject,
          predicate: `prefers_${snake(p.topic)}`,
          object: p.value,
          kind: 'preference' as const,
          confidence: p.confidence,
          messageSeq: p.sourceSeq,
          singleValued: true,
          supersedes: p.supersedes,
        })),
      ].sort((a, b) => (a.messageSeq ?? 0) - (b.messageSeq ?? 0));
      const factIds: string[] = [];
      const supersededIds: string[] = [];
      for (const fact of facts) {
        const written = await writeFact(client, fact);
        if (!written.duplicate) factIds.push(written.fact.fact_id);
        supersededIds.push(...written.supersededIds);
      }
      let episodeId: string | undefined;
      if (extraction.episodeSummary) {
        const { rows } = await client.query<{ episode_id: string }>(
          `INSERT INTO episodes (tenant_id, collection, conversation_id, kind, summary, topics, first_seq, last_seq, run_id)
           VALUES ($1, $2, $3, 'turn', $4, $5, $6, $7, $8) RETURNING episode_id`,
          [turn.tenantId, collection, turn.conversationId, extraction.episodeSummary, extraction.topics, turn.firstSeq, turn.lastSeq, turn.runId],
        );
        episodeId = rows[0]!.episode_id;
      }
      await client.query('UPDATE ingested_runs SET facts_stored = $3 WHERE tenant_id = $1 AND run_id = $2', [turn.tenantId, turn.runId, factIds.length]);
      await client.query('COMMIT');
      return { duplicate: false, factIds, supersededIds, episodeId };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
