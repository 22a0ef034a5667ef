import type pg from 'pg';
import { FACT_COLUMNS, type FactRow } from './fact-rows.js';

/** A fact to store, with its provenance and how it relates to current facts. */
export interface NewFact {
  tenantId: string;
  collection: string;
  subject: string;
  predicate: string;
  object: string;
  kind: 'fact' | 'preference';
  confidence: number;
  origin: 'extracted' | 'saved';
  conversationId: string | null;
  runId: string | null;
  messageSeq: number | null;
  /** The subject holds one value of the predicate at a time: other current values are superseded. */
  singleValued: boolean;
  /** Current facts (ids) the new fact makes untrue, whatever their predicate (the model's judgement). */
  supersedes: readonly string[];
}

export interface WrittenFact {
  fact: FactRow;
  supersededIds: string[];
  /** An identical current fact existed: it is returned and nothing was written. */
  duplicate: boolean;
}

const slotOf = (fact: NewFact): string =>
  `fact:${fact.tenantId}\u001f${fact.collection}\u001f${fact.subject.toLowerCase()}\u001f${fact.predicate}`;

/**
 * Takes the transaction-scoped advisory locks of the facts' (tenant, collection, subject,
 * predicate) slots, in one statement and one sorted order (writers locking several slots never
 * wait on each other in opposite orders).
 */
export async function lockFactSlots(client: pg.PoolClient, facts: readonly NewFact[]): Promise<void> {
  const slots = [...new Set(facts.map(slotOf))].sort();
  if (slots.length === 0) return;
  await client.query(
    'SELECT pg_advisory_xact_lock(k) FROM (SELECT hashtextextended(s, 0) AS k FROM unnest($1::text[]) AS s ORDER BY 1) AS ordered',
    [slots],
  );
}

/** Records that the fact's conversation taught it (migrations/0006: every conversation, not only the first). */
async function addFactSource(client: pg.PoolClient, fact: NewFact, factId: string): Promise<void> {
  if (!fact.conversationId) return;
  await client.query(
    `INSERT INTO fact_sources (tenant_id, fact_id, conversation_id, run_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING`,
    [fact.tenantId, factId, fact.conversationId, fact.runId],
  );
}

/**
 * Writes one fact inside the caller's transaction, with supersession: a transaction-scoped
 * advisory lock per (tenant, collection, subject, predicate) serialises writers of the same
 * slot, so two turns stating two new cities cannot both stay current. Superseded facts keep
 * their rows, with `valid_to` and `superseded_by` set.
 */
export async function writeFact(
  client: pg.PoolClient,
  fact: NewFact,
  options: { /** The caller took the slot's lock ({@link lockFactSlots}). */ locked?: boolean } = {},
): Promise<WrittenFact> {
  if (!options.locked) await lockFactSlots(client, [fact]);
  const existing = await client.query<FactRow>(
    `SELECT ${FACT_COLUMNS} FROM facts
     WHERE tenant_id = $1 AND collection = $2 AND lower(subject) = lower($3) AND predicate = $4 AND lower(object) = lower($5) AND valid_to IS NULL
     LIMIT 1`,
    [fact.tenantId, fact.collection, fact.subject, fact.predicate, fact.object],
  );
  if (existing.rows[0]) {
    await addFactSource(client, fact, existing.rows[0].fact_id);
    return { fact: existing.rows[0], supersededIds: [], duplicate: true };
  }

  const inserted = await client.query<FactRow>(
    `INSERT INTO facts (tenant_id, collection, subject, predicate, object, kind, confidence, origin, conversation_id, run_id, message_seq)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     RETURNING ${FACT_COLUMNS}`,
    [
      fact.tenantId,
      fact.collection,
      fact.subject,
      fact.predicate,
      fact.object,
      fact.kind,
      fact.confidence,
      fact.origin,
      fact.conversationId,
      fact.runId,
      fact.messageSeq,
    ],
  );
  const row = inserted.rows[0]!;
  await addFactSource(client, fact, row.fact_id);
  const superseded = await client.query<{ fact_id: string }>(
    `UPDATE facts SET valid_to = now(), superseded_by = $2
     WHERE tenant_id = $1 AND valid_to IS NULL AND fact_id <> $2
       AND (fact_id = ANY($3::uuid[])
            OR ($4 AND collection = $5 AND lower(subject) = lower($6) AND predicate = $7))
     RETURNING fact_id`,
    [fact.tenantId, row.fact_id, fact.supersedes, fact.singleValued, fact.collection, fact.subject, fact.predicate],
  );
  return { fact: row, supersededIds: superseded.rows.map((r) => r.fact_id), duplicate: false };
}
