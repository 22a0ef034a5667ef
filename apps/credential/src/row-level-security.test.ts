import { createPgPool } from '@platform/service-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialDatabase, MAINTENANCE_ROLE, RUNTIME_ROLE } from './credential-database.js';
import { CREDENTIAL_SCHEMA, startCredentialServer } from './server.js';
import {
  configFor,
  credentialTestClient,
  platformMetadata,
  startCredentialFixture,
  testLogger,
  type CredentialFixture,
} from './test-support/credential-fixture.js';

let fx: CredentialFixture;
let admin: pg.Client;

beforeAll(async () => {
  fx = await startCredentialFixture('credential_rls');
  for (const tenantId of ['acme', 'globex']) {
    await fx.client.rpc.saveCredential(
      {
        tenantId,
        service: 'google',
        account: '',
        secretJson: '{"t":"SECRET"}',
        expectedVersion: undefined,
        grant: '',
        callId: '',
        actor: undefined,
      },
      { metadata: platformMetadata() },
    );
  }
  admin = new pg.Client({ connectionString: fx.url });
  await admin.connect();
  await admin.query(`SET search_path TO ${CREDENTIAL_SCHEMA}`);
});
afterAll(async () => {
  await admin.end();
  await fx.stop();
});

/** Runs statements in one transaction as `role`, optionally with a tenant set, and rolls back. */
async function asRole<T>(role: string, tenantId: string | undefined, fn: () => Promise<T>): Promise<T> {
  await admin.query('BEGIN');
  try {
    await admin.query(`SET LOCAL ROLE ${role}`);
    if (tenantId !== undefined) await admin.query(`SELECT set_config('credential.tenant_id', $1, true)`, [tenantId]);
    return await fn();
  } finally {
    await admin.query('ROLLBACK');
  }
}

describe('row-level security on the credential tables', () => {
  it('is forced, and neither runtime role owns a table', async () => {
    const { rows } = await admin.query<{ relname: string; owner: string; rls: boolean; forced: boolean }>(
      `SELECT c.relname, pg_get_userbyid(c.relowner) AS owner, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname IN ('credentials', 'audit_events', 'model_connections') ORDER BY 1`,
      [CREDENTIAL_SCHEMA],
    );
    expect(rows.map((r) => r.relname)).toEqual(['audit_events', 'credentials', 'model_connections']);
    for (const row of rows) {
      expect(row).toMatchObject({ rls: true, forced: true });
      expect([RUNTIME_ROLE, MAINTENANCE_ROLE]).not.toContain(row.owner);
    }
  });

  it('shows the runtime role nothing when the transaction sets no tenant', async () => {
    const counts = await asRole(
      RUNTIME_ROLE,
      undefined,
      async () =>
        (
          await admin.query<{ n: string }>(
            'SELECT count(*) AS n FROM credentials UNION ALL SELECT count(*) FROM audit_events',
          )
        ).rows,
    );
    expect(counts.map((r) => Number(r.n))).toEqual([0, 0]);
    // The owner sees both rows: the data is there, the policy hides it.
    expect(Number((await admin.query<{ n: string }>('SELECT count(*) AS n FROM credentials')).rows[0]!.n)).toBe(2);
  });

  it('shows the runtime role only its tenant, and refuses writes into another tenant', async () => {
    const tenants = await asRole(
      RUNTIME_ROLE,
      'acme',
      async () => (await admin.query<{ tenant_id: string }>('SELECT tenant_id FROM credentials')).rows,
    );
    expect(tenants.map((r) => r.tenant_id)).toEqual(['acme']);
    const refused = await asRole(RUNTIME_ROLE, 'acme', () =>
      admin
        .query(
          `INSERT INTO credentials (tenant_id, service, account, version, key_id, wrapped_key, ciphertext) VALUES ('globex', 'x', 'primary', 1, 'k1', '\\x00', '\\x00')`,
        )
        .then(
          () => 'inserted',
          (e: Error) => e.message,
        ),
    );
    expect(refused).toMatch(/row-level security/);
    const updated = await asRole(
      RUNTIME_ROLE,
      'acme',
      async () => (await admin.query(`UPDATE credentials SET version = version WHERE tenant_id = 'globex'`)).rowCount,
    );
    expect(updated).toBe(0);
  });

  it('sets the tenant as a quoted literal: a hostile tenant id sees nothing and injects nothing', async () => {
    const pool = createPgPool({
      url: fx.url,
      applicationName: 'rls-test',
      searchPath: CREDENTIAL_SCHEMA,
      maxConnections: 1,
      logger: testLogger,
    });
    try {
      const db = new CredentialDatabase(pool);
      const rows = await db.asTenant(
        "acme' OR true --",
        async (client) => (await client.query<{ tenant_id: string }>('SELECT tenant_id FROM credentials')).rows,
      );
      expect(rows).toEqual([]);
      expect(
        await db.asTenant(
          'acme',
          async (client) => (await client.query<{ tenant_id: string }>('SELECT tenant_id FROM credentials')).rows,
        ),
      ).toEqual([{ tenant_id: 'acme' }]);
    } finally {
      await pool.end();
    }
  });

  it('commits reads asynchronously unless read audits must be durable; writes always wait for the disk', async () => {
    // The test server runs with synchronous_commit off; give this database the production default.
    const { rows } = await admin.query<{ db: string }>('SELECT current_database() AS db');
    await admin.query(`ALTER DATABASE "${rows[0]!.db}" SET synchronous_commit = on`);
    const pool = createPgPool({
      url: fx.url,
      applicationName: 'rls-test',
      searchPath: CREDENTIAL_SCHEMA,
      maxConnections: 1,
      logger: testLogger,
    });
    const mode = (db: CredentialDatabase, read: boolean) =>
      db.asTenant(
        'acme',
        async (client) =>
          (await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit,
        { read },
      );
    try {
      const fast = new CredentialDatabase(pool);
      expect([await mode(fast, true), await mode(fast, false)]).toEqual(['off', 'on']);
      const durable = new CredentialDatabase(pool, { durableReadAudit: true });
      expect([await mode(durable, true), await mode(durable, false)]).toEqual(['on', 'on']);
    } finally {
      await pool.end();
    }
  });

  it('reads through credential_read as the runtime role with the tenant set, for that statement only', async () => {
    await fx.client.rpc.saveCredential(
      {
        tenantId: 'globex',
        service: 'dropbox',
        account: '',
        secretJson: '{"t":"SECRET"}',
        expectedVersion: undefined,
        grant: '',
        callId: '',
        actor: undefined,
      },
      { metadata: platformMetadata() },
    );
    try {
      const read = async (tenantId: string, service: string) =>
        (
          await admin.query<{ service: string }>('SELECT service FROM credential_read($1, $2, $3)', [
            tenantId,
            service,
            'primary',
          ])
        ).rows;
      expect(await read('acme', 'google')).toEqual([{ service: 'google' }]);
      expect(await read('acme', 'dropbox')).toEqual([]);
      expect(await read("acme' OR true --", 'google')).toEqual([]);
      // One statement is its own transaction: the role and the tenant end with it.
      expect(
        (
          await admin.query('SELECT current_user = session_user AS own, current_setting($1, true) AS tenant', [
            'credential.tenant_id',
          ])
        ).rows[0],
      ).toEqual({ own: true, tenant: '' });
      expect((await admin.query('SELECT count(*)::int AS n FROM credentials')).rows[0]).toEqual({ n: 3 });
      // Inside a transaction block what follows the call stays the runtime role, filtered to that tenant.
      await admin.query('BEGIN');
      try {
        await read('acme', 'google');
        expect(
          (await admin.query('SELECT current_user AS who, current_setting($1) AS tenant', ['credential.tenant_id']))
            .rows[0],
        ).toEqual({ who: RUNTIME_ROLE, tenant: 'acme' });
        expect((await admin.query<{ tenant_id: string }>('SELECT DISTINCT tenant_id FROM credentials')).rows).toEqual([
          { tenant_id: 'acme' },
        ]);
      } finally {
        await admin.query('ROLLBACK');
      }
    } finally {
      await fx.client.rpc.deleteCredential(
        { tenantId: 'globex', service: 'dropbox', account: '', actor: undefined },
        { metadata: platformMetadata() },
      );
    }
  });

  it('lets only members of the runtime role call the read and audit functions', async () => {
    const outsider = `outsider_${Math.random().toString(36).slice(2, 10)}`;
    await admin.query(`CREATE ROLE ${outsider} LOGIN`);
    const url = new URL(fx.url);
    url.username = outsider;
    const direct = new pg.Client({ connectionString: url.toString() });
    await direct.connect();
    try {
      const attempt = (sql: string) =>
        direct.query(sql).then(
          () => 'ran',
          (e: Error) => e.message,
        );
      expect(await attempt(`SELECT * FROM ${CREDENTIAL_SCHEMA}.credential_read('acme', 'google', 'primary')`)).toMatch(
        /permission denied to set role/,
      );
      expect(
        await attempt(
          `SELECT ${CREDENTIAL_SCHEMA}.credential_append_audit('{acme}', '{google}', '{primary}', '{get}', '{ok}', '{platform}', '{x}', '{}', '{}', '{}', '{now}')`,
        ),
      ).toMatch(/permission denied to set role/);
      expect(await attempt(`SELECT count(*) FROM ${CREDENTIAL_SCHEMA}.credentials`)).toMatch(/permission denied/);
    } finally {
      await direct.end();
    }
  });

  it('appends batched audit rows each under its own tenant, and refuses a ragged or tenantless batch', async () => {
    const append = (tenants: (string | null)[], services: string[]) =>
      admin
        .query('SELECT credential_append_audit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS n', [
          tenants,
          services,
          services.map(() => 'primary'),
          services.map(() => 'get'),
          services.map(() => 'ok'),
          services.map(() => 'grant'),
          services.map(() => ''),
          services.map(() => 'tool'),
          services.map(() => 'run-b'),
          services.map(() => 'call-b'),
          services.map(() => new Date()),
        ])
        .then(
          (r) => Number((r.rows[0] as { n: string }).n),
          (e: Error) => e.message,
        );
    expect(await append(['acme', 'globex', 'acme'], ['s1', 's2', 's3'])).toBe(3);
    const seen = (tenantId: string) =>
      asRole(RUNTIME_ROLE, tenantId, async () =>
        (
          await admin.query<{ service: string }>(`SELECT service FROM audit_events WHERE run_id = 'run-b' ORDER BY id`)
        ).rows.map((r) => r.service),
      );
    expect([await seen('acme'), await seen('globex')]).toEqual([['s1', 's3'], ['s2']]);
    expect(await append(['acme', 'acme'], ['s4'])).toMatch(/null value/);
    expect(await append(['acme', null], ['s5', 's6'])).toMatch(/every row needs a tenant/);
    expect(await seen('acme')).toEqual(['s1', 's3']);
  });

  it('gives the runtime role an append-only audit trail', async () => {
    const update = await asRole(RUNTIME_ROLE, 'acme', () =>
      admin.query(`UPDATE audit_events SET outcome = 'x'`).then(
        () => 'updated',
        (e: Error) => e.message,
      ),
    );
    expect(update).toMatch(/permission denied/);
    const del = await asRole(RUNTIME_ROLE, 'acme', () =>
      admin.query('DELETE FROM audit_events').then(
        () => 'deleted',
        (e: Error) => e.message,
      ),
    );
    expect(del).toMatch(/permission denied/);
  });

  it('lets the maintenance role see key columns of every tenant but never a ciphertext', async () => {
    const keys = await asRole(
      MAINTENANCE_ROLE,
      undefined,
      async () => (await admin.query('SELECT tenant_id, key_id FROM credentials')).rowCount,
    );
    expect(keys).toBe(2);
    const ciphertext = await asRole(MAINTENANCE_ROLE, undefined, () =>
      admin.query('SELECT ciphertext FROM credentials').then(
        () => 'read',
        (e: Error) => e.message,
      ),
    );
    expect(ciphertext).toMatch(/permission denied/);
    const insert = await asRole(MAINTENANCE_ROLE, undefined, () =>
      admin.query('DELETE FROM credentials').then(
        () => 'deleted',
        (e: Error) => e.message,
      ),
    );
    expect(insert).toMatch(/permission denied/);
  });

  it('serves from a NOINHERIT login role that only holds the runtime roles, migrating with the owner', async () => {
    const login = `credential_app_${Math.random().toString(36).slice(2, 10)}`;
    await admin.query(`CREATE ROLE ${login} LOGIN NOINHERIT IN ROLE ${RUNTIME_ROLE}, ${MAINTENANCE_ROLE}`);
    const runtimeUrl = new URL(fx.url);
    runtimeUrl.username = login;
    const server = await startCredentialServer(
      await configFor(runtimeUrl.toString(), fx.keyring, fx.jwks, { DATABASE_MIGRATION_URL: fx.url }),
      testLogger,
    );
    try {
      const client = await credentialTestClient(server.port);
      try {
        const request = { tenantId: 'acme', service: 'github', account: '', grant: '', callId: '', actor: undefined };
        await client.rpc.saveCredential(
          { ...request, secretJson: '{"t":"SECRET"}', expectedVersion: undefined },
          { metadata: platformMetadata() },
        );
        expect((await client.rpc.getCredential(request, { metadata: platformMetadata() })).secretJson).toBe(
          '{"t":"SECRET"}',
        );
      } finally {
        client.close();
      }
      const direct = new pg.Client({ connectionString: runtimeUrl.toString() });
      await direct.connect();
      try {
        // NOINHERIT: the login role has no table rights until a transaction drops into a runtime role.
        const attempt = await direct.query(`SELECT count(*) FROM ${CREDENTIAL_SCHEMA}.credentials`).then(
          () => 'read',
          (e: Error) => e.message,
        );
        expect(attempt).toMatch(/permission denied/);
      } finally {
        await direct.end();
      }
    } finally {
      await server.stop();
    }
  });
});
