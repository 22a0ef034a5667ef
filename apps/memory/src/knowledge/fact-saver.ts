import type pg from 'pg';
import type { VectorIndex } from '../recall/vector-index.js';
import { writeFact, type WrittenFact } from './fact-writer.js';

export interface SaveFactInput {
  tenantId: string;
  collection: string | undefined;
  subject: string;
  predicate: string;
  object: string;
  kind: 'fact' | 'preference';
  confidence: number;
  conversationId: string | null;
  runId: string | null;
  messageSeq: number | null;
}

/** Predicates as stored: lower snake case. */
export function normalisePredicate(predicate: string): string {
  return predicate
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
}

/** Explicitly saved facts (SaveFact, the memory_save tool): same supersession rules as extracted ones. */
export class FactSaver {
  constructor(
    private readonly pool: pg.Pool,
    private readonly settings: { defaultCollection: string; singleValuedPredicates: ReadonlySet<string> },
    private readonly vectors: () => VectorIndex | undefined,
  ) {}

  async save(input: SaveFactInput): Promise<WrittenFact> {
    const predicate = normalisePredicate(input.predicate) || 'is';
    const client = await this.pool.connect();
    let written: WrittenFact;
    try {
      await client.query('BEGIN');
      written = await writeFact(client, {
        ...input,
        collection: input.collection ?? this.settings.defaultCollection,
        predicate,
        origin: 'saved',
        singleValued: input.kind === 'preference' || this.settings.singleValuedPredicates.has(predicate),
        supersedes: [],
      });
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    if (!written.duplicate) await this.vectors()?.indexNew(input.tenantId, [written.fact.fact_id], []).catch(() => undefined);
    return written;
  }
}
