import { createHash } from 'node:crypto';
import { inTransaction } from '@platform/service-kit';
import type pg from 'pg';
import type { VectorIndex } from '../recall/vector-index.js';
import { writeAudit } from './audit-log.js';
import { collectionPrefixSql } from './collections.js';
import { FACT_COLUMNS, isUuid, type FactRow } from './fact-rows.js';

export interface ListFactsQuery {
  tenantId: string;
  collectionPrefix: string;
  subject: string;
  includeSuperseded: boolean;
  pageSize: number;
  /** Keyset cursor: the last row of the previous page. */
  after: { createdAt: string; factId: string } | undefined;
}

export interface Deletion {
  auditId: string;
  facts: number;
  entities: number;
  episodes: number;
}

/** Audit targets name a subject by hash: the log must not keep what was forgotten. */
const subjectDigest = (subject: string): string =>
  `sha256:${createHash('sha256').update(subject.toLowerCase()).digest('hex').slice(0, 32)}`;

const WORD_CHAR = '[\\p{L}\\p{N}\\p{M}_]';

/** Says whether `text` names `subject` as a whole word or phrase, ignoring case: "Ann" is in "Ann's cat", not in "Anna". */
export function mentionsWholeWord(text: string, subject: string): boolean {
  const phrase = subject.trim();
  if (phrase === '') return false;
  const escaped = phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<!${WORD_CHAR})${escaped}(?!${WORD_CHAR})`, 'iu').test(text);
}

/** Reading, listing and hard-deleting facts. Every statement is scoped by tenant. */
export class FactQueries {
  constructor(
    private readonly pool: pg.Pool,
    private readonly vectors: () => VectorIndex | undefined,
  ) {}

  async list(q: ListFactsQuery): Promise<{ facts: FactRow[]; hasMore: boolean }> {
    const { rows } = await this.pool.query<FactRow>(
      `SELECT ${FACT_COLUMNS} FROM facts
       WHERE tenant_id = $1 AND ${collectionPrefixSql('$2')}
         AND ($3 = '' OR lower(subject) = lower($3))
         AND ($4 OR valid_to IS NULL)
         AND ($6::timestamptz IS NULL OR (created_at, fact_id) < ($6::timestamptz, $7::uuid))
       ORDER BY created_at DESC, fact_id DESC LIMIT $5`,
      [
        q.tenantId,
        q.collectionPrefix,
        q.subject,
        q.includeSuperseded,
        q.pageSize + 1,
        q.after?.createdAt ?? null,
        q.after?.factId ?? null,
      ],
    );
    return { facts: rows.slice(0, q.pageSize), hasMore: rows.length > q.pageSize };
  }

  async get(tenantId: string, factId: string): Promise<FactRow | undefined> {
    if (!isUuid(factId)) return undefined;
    const { rows } = await this.pool.query<FactRow>(
      `SELECT ${FACT_COLUMNS} FROM facts WHERE tenant_id = $1 AND fact_id = $2`,
      [tenantId, factId],
    );
    return rows[0];
  }

  /** Hard-deletes one fact (facts it superseded stay superseded); undefined when the tenant has no such fact. */
  async delete(tenantId: string, factId: string, actor: string, reason: string): Promise<Deletion | undefined> {
    if (!isUuid(factId)) return undefined;
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query('DELETE FROM facts WHERE tenant_id = $1 AND fact_id = $2', [
        tenantId,
        factId,
      ]);
      if (!rowCount) return undefined;
      // Facts it replaced keep pointing at a row that no longer exists: clear the dangling link, not their end.
      await client.query('UPDATE facts SET superseded_by = NULL WHERE tenant_id = $1 AND superseded_by = $2', [
        tenantId,
        factId,
      ]);
      await client.query('DELETE FROM fact_sources WHERE tenant_id = $1 AND fact_id = $2', [tenantId, factId]);
      await this.vectors()?.forget(client, tenantId, [factId]);
      const auditId = await this.audit(client, tenantId, 'delete_fact', `fact:${factId}`, actor, reason, { facts: 1 });
      return { auditId, facts: 1, entities: 0, episodes: 0 };
    });
  }

  /** Hard-deletes everything about a subject: its facts (as subject or object), its entity, the episodes naming it. */
  async forgetSubject(
    tenantId: string,
    subject: string,
    collectionPrefix: string,
    actor: string,
    reason: string,
  ): Promise<Deletion> {
    return inTransaction(this.pool, async (client) => {
      const facts = await client.query<{ fact_id: string }>(
        `DELETE FROM facts WHERE tenant_id = $1 AND ${collectionPrefixSql('$2')} AND (lower(subject) = lower($3) OR lower(object) = lower($3)) RETURNING fact_id`,
        [tenantId, collectionPrefix, subject],
      );
      const ids = facts.rows.map((r) => r.fact_id);
      await client.query(
        'UPDATE facts SET superseded_by = NULL WHERE tenant_id = $1 AND superseded_by = ANY($2::uuid[])',
        [tenantId, ids],
      );
      await client.query('DELETE FROM fact_sources WHERE tenant_id = $1 AND fact_id = ANY($2::uuid[])', [
        tenantId,
        ids,
      ]);
      const entities = await client.query(
        `DELETE FROM entities WHERE tenant_id = $1 AND ${collectionPrefixSql('$2')} AND lower(name) = lower($3)`,
        [tenantId, collectionPrefix, subject],
      );
      // An episode whose summary names the subject goes too: a summary cannot be half forgotten.
      // "Names" is a whole-word match ("Ann" is not in "Anna"): the text search narrows the rows,
      // a Unicode-aware word-boundary test decides.
      const mentioning = await client.query<{ episode_id: string; summary: string }>(
        `SELECT episode_id, summary FROM episodes WHERE tenant_id = $1 AND ${collectionPrefixSql('$2')} AND position(lower($3) IN lower(summary)) > 0 FOR UPDATE`,
        [tenantId, collectionPrefix, subject],
      );
      const naming = mentioning.rows.filter((r) => mentionsWholeWord(r.summary, subject)).map((r) => r.episode_id);
      if (naming.length) {
        await client.query('DELETE FROM episodes WHERE tenant_id = $1 AND episode_id = ANY($2::uuid[])', [
          tenantId,
          naming,
        ]);
        // A repeated turn episode is one row shared by every run that said it: all of them lose the link.
        await client.query(
          'UPDATE ingested_runs SET episode_id = NULL WHERE tenant_id = $1 AND episode_id = ANY($2::uuid[])',
          [tenantId, naming],
        );
      }
      await this.vectors()?.forget(client, tenantId, [...ids, ...naming]);
      const counts = { facts: ids.length, entities: entities.rowCount ?? 0, episodes: naming.length };
      const auditId = await this.audit(
        client,
        tenantId,
        'forget_subject',
        `subject:${subjectDigest(subject)}`,
        actor,
        reason,
        counts,
      );
      return { auditId, ...counts };
    });
  }

  private audit(
    client: pg.PoolClient,
    tenantId: string,
    action: string,
    target: string,
    actor: string,
    reason: string,
    counts: Record<string, number>,
  ): Promise<string> {
    return writeAudit(client, { tenantId, action, target, actor, reason }, counts);
  }
}
