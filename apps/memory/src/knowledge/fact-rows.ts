import type { memoryV1 } from '@platform/proto';

/** A facts row as selected by {@link FACT_COLUMNS}. */
export interface FactRow {
  fact_id: string;
  collection: string;
  subject: string;
  predicate: string;
  object: string;
  kind: 'fact' | 'preference';
  confidence: number;
  origin: 'extracted' | 'saved';
  conversation_id: string | null;
  run_id: string | null;
  message_seq: string | null;
  valid_from: Date;
  valid_to: Date | null;
  superseded_by: string | null;
  created_at: Date;
}

export const FACT_COLUMNS =
  'fact_id, collection, subject, predicate, object, kind, confidence, origin, conversation_id, run_id, message_seq, valid_from, valid_to, superseded_by, created_at';

export function factToProto(row: FactRow): memoryV1.Fact {
  return {
    factId: row.fact_id,
    collection: row.collection,
    subject: row.subject,
    predicate: row.predicate,
    object: row.object,
    kind: row.kind,
    confidence: Number(row.confidence),
    source: {
      origin: row.origin,
      conversationId: row.conversation_id ?? '',
      runId: row.run_id ?? '',
      messageSeq: Number(row.message_seq ?? 0),
    },
    validFrom: row.valid_from,
    validTo: row.valid_to ?? undefined,
    supersededBy: row.superseded_by ?? '',
    current: row.valid_to === null,
    createdAt: row.created_at,
  };
}

/** One line for a prompt: "user lives in Berlin (since 2026-05-01)". */
export function factText(row: Pick<FactRow, 'subject' | 'predicate' | 'object' | 'valid_from' | 'kind'>): string {
  const since = row.valid_from.toISOString().slice(0, 10);
  return `${row.subject} ${row.predicate.replaceAll('_', ' ')} ${row.object} (${row.kind === 'preference' ? 'preference, ' : ''}since ${since})`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Fact and episode ids are UUIDs; anything else cannot name a stored row. */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}
