import { createPgPool, type Logger } from '@platform/service-kit';
import type pg from 'pg';

export interface TrigramConnectionOptions {
  url: string;
  schema: string;
  /** Connections kept for the trigram search; 0: none (it shares the service's pool). */
  connections: number;
  /** `pg_trgm.word_similarity_threshold`, as on every recall connection. */
  threshold: number;
  logger: Logger;
}

/** What recall's trigram connections show as in pg_stat_activity. */
export const TRIGRAM_APPLICATION_NAME = 'memory-recall-trigram';

/**
 * Connections of their own for recall's trigram search, which reuse one generic plan of it
 * (`plan_cache_mode = force_generic_plan`, a connection setting) instead of planning every call:
 * PostgreSQL's own choice keeps planning it per call, and planning cost more than running it on a
 * small tenant (0.7 ms against 0.15 ms per recall), while its generic plan was as fast or faster at
 * 100k facts per tenant (bench/memory README). The other searches stay on the shared pool: the
 * full-text statement's plan depends on the query's words, and a generic plan of the vector search
 * is 50-100x slower.
 */
export function openTrigramPool(options: TrigramConnectionOptions): pg.Pool | undefined {
  if (options.connections <= 0) return undefined;
  return createPgPool({
    url: options.url,
    applicationName: TRIGRAM_APPLICATION_NAME,
    searchPath: options.schema,
    maxConnections: options.connections,
    settings: { 'pg_trgm.word_similarity_threshold': String(options.threshold), plan_cache_mode: 'force_generic_plan' },
    logger: options.logger,
  });
}
