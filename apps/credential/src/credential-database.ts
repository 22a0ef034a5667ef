import type pg from 'pg';
import { inTransaction } from '@platform/service-kit';

/** The role tenant requests act as (see migrations/0001_credentials.sql). */
export const RUNTIME_ROLE = 'credential_runtime';
/** The role key rotation acts as: key columns of every tenant, never a ciphertext. */
export const MAINTENANCE_ROLE = 'credential_maintenance';

/**
 * Every query runs in a transaction that first drops to a role that does not own the tables
 * (RLS is forced, so it applies), and for tenant work sets the tenant for that transaction only
 * (`set_config(..., true)` = SET LOCAL): a pooled connection never carries one tenant into
 * another's request, and a query that forgot its tenant sees no rows at all.
 */
export class CredentialDatabase {
  constructor(
    readonly pool: pg.Pool,
    private readonly options: { durableReadAudit?: boolean } = {},
  ) {}

  /**
   * Runs `fn` as the runtime role with `tenantId` as the transaction's tenant. A `read` (a List,
   * whose only write is its audit row) commits without waiting for the WAL flush unless
   * `durableReadAudit` is set: Postgres flushes it within `wal_writer_delay`, so only a database
   * crash in that window can lose read audit rows; saves and deletes always commit durably. (A Get
   * does not come here: it is one statement, `credential_read` of migration 0002, which takes the
   * same two steps inside.)
   */
  asTenant<T>(
    tenantId: string,
    fn: (client: pg.PoolClient) => Promise<T>,
    options: { read?: boolean } = {},
  ): Promise<T> {
    const settings = (client: pg.PoolClient): string[] => [
      `set_config('role', '${RUNTIME_ROLE}', true)`,
      `set_config('credential.tenant_id', ${client.escapeLiteral(tenantId)}, true)`,
      ...(options.read && !this.options.durableReadAudit ? [`set_config('synchronous_commit', 'off', true)`] : []),
    ];
    return this.transaction(settings, fn);
  }

  /** Runs `fn` as the maintenance role (key usage, rewrap): no tenant, no secrets. */
  asMaintenance<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.transaction(() => [`set_config('role', '${MAINTENANCE_ROLE}', true)`], fn);
  }

  /** Runs `fn` as another role of the schema, with no tenant (API key verification, migration 0003). */
  asRole<T>(role: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.transaction((client) => [`set_config('role', ${client.escapeLiteral(role)}, true)`], fn);
  }

  /**
   * BEGIN and the transaction's settings go in one round trip (a simple-protocol query of two
   * statements; the tenant id is a quoted literal, and was validated before it got here).
   */
  private transaction<T>(
    settings: (client: pg.PoolClient) => string[],
    fn: (client: pg.PoolClient) => Promise<T>,
  ): Promise<T> {
    return inTransaction(this.pool, fn, { settings });
  }
}
