import { QUOTA_NAMES } from '@platform/contracts';
import { quotaExceeded } from '@platform/service-kit';
import type pg from 'pg';
import type { VectorIndex } from '../recall/vector-index.js';
import { writeFact, type WrittenFact } from './fact-writer.js';

/** A tenant's fact quota: current facts it may hold, and the configured tier it is of. */
export interface FactQuota {
  maxFacts: number;
  tier: string;
}

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
  /** The caller's tier (empty: the default tier): it picks the fact quota. */
  tier: string;
}

/** Predicates as stored: lower snake case. */
function normalisePredicate(predicate: string): string {
  return predicate
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
}

/**
 * Explicitly saved facts (SaveFact, the memory_save tool): same supersession rules as extracted
 * ones, within the tenant's fact quota. A save that adds a current fact (not a duplicate, not
 * replacing one) past the quota is rolled back and refused; the tenant's saves are serialized by
 * a transaction lock, so two at the limit cannot both pass.
 */
export class FactSaver {
  constructor(
    private readonly pool: pg.Pool,
    private readonly settings: {
      defaultCollection: string;
      singleValuedPredicates: ReadonlySet<string>;
      quotaOf: (tier: string) => FactQuota;
    },
    private readonly vectors: () => VectorIndex | undefined,
  ) {}

  async save(input: SaveFactInput): Promise<WrittenFact> {
    const predicate = normalisePredicate(input.predicate) || 'is';
    const quota = this.settings.quotaOf(input.tier);
    const client = await this.pool.connect();
    let written: WrittenFact;
    try {
      await client.query('BEGIN');
      // Two keys, so no tenant id can meet another's lock through a separator.
      await client.query({
        name: 'fact-quota-lock',
        text: "SELECT pg_advisory_xact_lock(hashtext('memory-fact-quota'), hashtext($1))",
        values: [input.tenantId],
      });
      const { rows } = await client.query<{ n: string }>({
        name: 'fact-quota-count',
        text: 'SELECT count(*) AS n FROM facts WHERE tenant_id = $1 AND valid_to IS NULL',
        values: [input.tenantId],
      });
      const current = Number(rows[0]!.n);
      const { tier: _tier, ...fact } = input;
      written = await writeFact(client, {
        ...fact,
        collection: input.collection ?? this.settings.defaultCollection,
        predicate,
        origin: 'saved',
        singleValued: input.kind === 'preference' || this.settings.singleValuedPredicates.has(predicate),
        supersedes: [],
      });
      if (!written.duplicate && written.supersededIds.length === 0 && current >= quota.maxFacts) {
        throw quotaExceeded({
          quota: QUOTA_NAMES.facts,
          limit: quota.maxFacts,
          tier: quota.tier,
          message: `this tenant holds ${current} facts, the most its tier allows; delete some first (DELETE /v1/memory/facts/{factId})`,
        });
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    if (!written.duplicate)
      await this.vectors()
        ?.indexNew(input.tenantId, [written.fact.fact_id], [])
        .catch(() => undefined);
    return written;
  }
}
