import type pg from 'pg';

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
  constructor(readonly pool: pg.Pool) {}

  /**
   * Runs `fn` as the runtime role with `tenantId` as the transaction's tenant. A `read` (whose
   * only write is its audit row) commits without waiting for the WAL flush: Postgres flushes it
   * within `wal_writer_delay`, so only a database crash in that window can lose read audit rows;
   * saves and deletes always commit durably.
   */
  asTenant<T>(tenantId: string, fn: (client: pg.PoolClient) => Promise<T>, options: { read?: boolean } = {}): Promise<T> {
    return this.transaction(
      options.read
        ? {
            name: 'credential-as-tenant-read',
            text: `SELECT set_config('role', '${RUNTIME_ROLE}', true), set_config('credential.tenant_id', $1, true), set_config('synchronous_commit', 'off', true)`,
            values: [tenantId],
          }
        : { name: 'credential-as-tenant', text: `SELECT set_config('role', '${RUNTIME_ROLE}', true), set_config('credential.tenant_id', $1, true)`, values: [tenantId] },
      fn,
    );
  }

  /** Runs `fn` as the maintenance role (key usage, rewrap): no tenant, no secrets. */
  asMaintenance<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.transaction({ name: 'credential-as-maintenance', text: `SELECT set_config('role', '${MAINTENANCE_ROLE}', true)`, values: [] }, fn);
  }

  private async transaction<T>(setup: pg.QueryConfig, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(setup);
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
