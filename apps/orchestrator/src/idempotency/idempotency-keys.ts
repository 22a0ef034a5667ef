import type { Logger } from '@platform/service-kit';
import type pg from 'pg';

/** A tenant's live Idempotency-Key: the run its first message started, and that request's fingerprint. */
export interface IdempotencyRecord {
  runId: string;
  fingerprint: string;
}

export interface IdempotencyKeysOptions {
  /** How often expired keys are deleted. */
  sweepIntervalMs: number;
  /** Keys deleted per statement of a sweep (a sweep goes on while a batch comes back full). */
  sweepBatch?: number;
  logger: Logger;
}

/** Expired keys deleted by one statement: small enough that a sweep never holds many row locks. */
const DEFAULT_SWEEP_BATCH = 1_000;

/**
 * The idempotency_keys table (migrations/0014). A key is written only by the statement that records
 * its run (journal/run-statements.ts, `keyedCte`); this reads a live key and sweeps expired ones.
 * An expired key is never read (lazy expiry), so the sweep only bounds the table: it holds at most
 * the keyed sends of one key lifetime.
 */
export class IdempotencyKeys {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: IdempotencyKeysOptions,
  ) {}

  /** The tenant's key, unless it is absent or expired. */
  async find(tenantId: string, key: string): Promise<IdempotencyRecord | undefined> {
    const { rows } = await this.pool.query<{ run_id: string; fingerprint: string }>({
      name: 'idempotency-keys-find',
      text: `SELECT run_id, fingerprint FROM idempotency_keys
             WHERE tenant_id = $1 AND idempotency_key = $2 AND expires_at > now()`,
      values: [tenantId, key],
    });
    const row = rows[0];
    return row ? { runId: row.run_id, fingerprint: row.fingerprint } : undefined;
  }

  /** Deletes the expired keys, a batch at a time; returns how many. */
  async sweep(): Promise<number> {
    const batch = this.options.sweepBatch ?? DEFAULT_SWEEP_BATCH;
    let deleted = 0;
    for (;;) {
      const { rowCount } = await this.pool.query({
        name: 'idempotency-keys-sweep',
        text: `DELETE FROM idempotency_keys WHERE ctid IN (
                 SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)`,
        values: [batch],
      });
      deleted += rowCount ?? 0;
      if ((rowCount ?? 0) < batch) return deleted;
    }
  }

  /** Sweeps every `sweepIntervalMs` until {@link stop}. */
  start(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((err: unknown) =>
        this.options.logger.warn({ err }, 'sweeping expired idempotency keys failed; trying again later'),
      );
    }, this.options.sweepIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
