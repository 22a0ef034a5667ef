import type pg from 'pg';

/** A delivery claimed from the outbox for one attempt (`attempts` counts this one). */
export interface ClaimedWebhook {
  id: string;
  url: string;
  body: string;
  attempts: number;
  secret: string;
  /** Headers of this delivery's own (e.g. the receiver's token), sent besides the signature's. */
  headers?: Record<string, string>;
}

/** How an attempt is recorded: delivered, due again at a time, or failed for good. */
export type WebhookSettlement =
  | { status: 'delivered'; atMs: number }
  | { status: 'pending'; dueAtMs: number; error: string }
  | { status: 'failed'; error: string };

/** Where the deliveries wait: claimed with a lease, settled fenced by (lease owner, attempt). */
export interface WebhookOutboxStore {
  claimDue(nowMs: number, limit: number, owner: string, leaseUntilMs: number): Promise<ClaimedWebhook[]>;
  settle(claimed: ClaimedWebhook, settlement: WebhookSettlement, owner: string): Promise<void>;
}

/**
 * Names a service's outbox table. The table has the outbox columns (`url`, `body`, `status` in
 * pending | sending | delivered | failed, `attempts`, `due_at`, `lease_owner`, `lease_expires_at`,
 * `last_error`, `delivered_at`); the names here are the service's constants, never a tenant's input.
 */
export interface OutboxTableOptions {
  table: string;
  idColumn: string;
  /** A SQL expression over the claimed row `n` that gives the signing secret (a join to where the service keeps it). */
  secretSql: string;
  /** A SQL expression over `n` giving a JSON object of extra headers (string values) for the delivery; absent: none. */
  headersSql?: string;
}

/**
 * The Postgres outbox: claims due deliveries (`FOR UPDATE SKIP LOCKED`, with a lease, so a replica's
 * death only delays them; a lease run out is claimed again) and records each attempt's outcome.
 */
export class PgWebhookOutbox implements WebhookOutboxStore {
  constructor(
    private readonly db: pg.Pool,
    private readonly options: OutboxTableOptions,
  ) {}

  async claimDue(nowMs: number, limit: number, owner: string, leaseUntilMs: number): Promise<ClaimedWebhook[]> {
    const { table, idColumn, secretSql, headersSql } = this.options;
    const { rows } = await this.db.query<ClaimedWebhook>(
      `WITH due AS (
         SELECT ${idColumn} FROM ${table}
         WHERE (status = 'pending' AND due_at <= $1) OR (status = 'sending' AND lease_expires_at <= $1)
         ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE ${table} n SET status = 'sending', attempts = n.attempts + 1, lease_owner = $3, lease_expires_at = $4
       FROM due WHERE n.${idColumn} = due.${idColumn}
       RETURNING n.${idColumn} AS id, n.url, n.body, n.attempts, coalesce(${secretSql}, '') AS secret,
         ${headersSql ?? `'{}'::jsonb`} AS headers`,
      [new Date(nowMs), limit, owner, new Date(leaseUntilMs)],
    );
    return rows;
  }

  async settle(claimed: ClaimedWebhook, settlement: WebhookSettlement, owner: string): Promise<void> {
    const { set, values } =
      settlement.status === 'delivered'
        ? { set: `status = 'delivered', delivered_at = $4, last_error = ''`, values: [new Date(settlement.atMs)] }
        : settlement.status === 'pending'
          ? {
              set: `status = 'pending', due_at = $5, last_error = $4`,
              values: [settlement.error, new Date(settlement.dueAtMs)],
            }
          : { set: `status = 'failed', last_error = $4`, values: [settlement.error] };
    const { table, idColumn } = this.options;
    await this.db.query(
      `UPDATE ${table} SET ${set}, lease_owner = NULL, lease_expires_at = NULL
       WHERE ${idColumn} = $1 AND attempts = $2 AND lease_owner = $3 AND status = 'sending'`,
      [claimed.id, claimed.attempts, owner, ...values],
    );
  }
}
