// Model connections through a real credential service (its gRPC over mutual TLS, its Postgres):
// stored with the key sealed and never shown again, scoped by tenant on every method, bounded by
// the tier's quota (0 = off), and the base URL through the egress guard on every write.
import { credentialV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport, PlatformError } from '@platform/service-kit';
import { testCertificates } from '@platform/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_SCHEMA } from '../server.js';
import {
  platformMetadata,
  startCredentialFixture,
  type CredentialFixture,
} from '../test-support/credential-fixture.js';

let fx: CredentialFixture;
const asPlatform = { metadata: platformMetadata() };
const KEY = 'sk-tenant-SECRET-0123456789-abcd';
// The test's endpoint is on loopback: the operator's allowlist admits exactly that address.
const URL_OK = 'http://127.0.0.1:9/v1';

beforeAll(async () => {
  fx = await startCredentialFixture('model_connections', {
    EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
    TENANT_TIERS: JSON.stringify({ off: { modelConnections: 0 }, small: { modelConnections: 2 } }),
  });
});
afterAll(() => fx.stop());

function create(tenantId: string, name: string, extra: Partial<credentialV1.CreateModelConnectionRequest> = {}) {
  return fx.client.rpc.createModelConnection(
    { tenantId, name, baseUrl: URL_OK, apiKey: KEY, models: ['m-1'], actor: { subject: 'user-1' }, ...extra },
    asPlatform,
  );
}
function resolve(tenantId: string, name: string, tier = '') {
  return fx.client.rpc.resolveModelConnection({ tenantId, name, tier, runId: 'run-1' }, asPlatform);
}
async function rejection(promise: Promise<unknown>): Promise<PlatformError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlatformError);
  return err as PlatformError;
}

describe('model connections in the credential service', () => {
  it('stores a connection, shows only a preview of its key, and gives the key to the orchestrator only', async () => {
    const { connection } = await create('acme', 'acme-llm');
    expect(connection).toMatchObject({
      name: 'acme-llm',
      baseUrl: URL_OK,
      models: ['m-1'],
      keyPreview: '…abcd',
      version: 1,
    });
    const listed = await fx.client.rpc.listModelConnections({ tenantId: 'acme', actor: undefined }, asPlatform);
    const got = await fx.client.rpc.getModelConnection(
      { tenantId: 'acme', name: 'acme-llm', actor: undefined },
      asPlatform,
    );
    expect(listed.connections.map((c) => c.name)).toEqual(['acme-llm']);
    expect(got.connection?.keyPreview).toBe('…abcd');
    expect(JSON.stringify([connection, listed, got])).not.toContain('SECRET');
    const resolved = await resolve('acme', 'acme-llm');
    expect(resolved).toMatchObject({ apiKey: KEY, connection: { baseUrl: URL_OK, models: ['m-1'] } });

    // The api's identity may manage connections but never read a key.
    const asApi = createGrpcClient(
      credentialV1.CredentialServiceClient,
      credentialV1.CredentialServiceService,
      `127.0.0.1:${fx.server.port}`,
      {
        defaultDeadlineMs: 5_000,
        transport: new MutualTlsTransport(await testCertificates('api')),
        server: 'credential',
      },
    );
    try {
      const refused = await rejection(
        asApi.rpc.resolveModelConnection({ tenantId: 'acme', name: 'acme-llm', runId: '' }, asPlatform),
      );
      expect(refused.kind).toBe('permission_denied');
    } finally {
      asApi.close();
    }
  });

  it('keeps the key sealed in Postgres, bound to its tenant and name, out of the credential list and quota', async () => {
    await create('sealed', 'llm');
    await create('sealed', 'other', { apiKey: 'sk-other-SECRET-key-5555' });
    const admin = new pg.Client({ connectionString: fx.url });
    await admin.connect();
    try {
      await admin.query(`SET search_path TO ${CREDENTIAL_SCHEMA}`);
      const { rows } = await admin.query<{ plain: boolean }>(
        `SELECT position(convert_to('SECRET', 'UTF8') in ciphertext) > 0 AS plain FROM credentials
          WHERE tenant_id = 'sealed' AND service = '@model-connection' ORDER BY account`,
      );
      expect(rows).toEqual([{ plain: false }, { plain: false }]);
      const { rows: stored } = await admin.query<{ dump: string }>(
        "SELECT string_agg(m::text, ' ') AS dump FROM model_connections m WHERE tenant_id = 'sealed'",
      );
      expect(stored[0]!.dump).not.toContain('SECRET');
      // The runtime role, as another tenant, sees none of these rows (RLS on the new table).
      await admin.query('BEGIN');
      try {
        await admin.query('SET LOCAL ROLE credential_runtime');
        await admin.query("SELECT set_config('credential.tenant_id', 'someone-else', true)");
        expect((await admin.query('SELECT name FROM model_connections')).rows).toEqual([]);
      } finally {
        await admin.query('ROLLBACK');
      }
      // One connection's sealed key copied onto another's row: it does not open there.
      await admin.query(
        `UPDATE credentials SET ciphertext = src.ciphertext, wrapped_key = src.wrapped_key, key_id = src.key_id, version = src.version
           FROM (SELECT ciphertext, wrapped_key, key_id, version FROM credentials
                  WHERE tenant_id = 'sealed' AND service = '@model-connection' AND account = 'other') src
          WHERE tenant_id = 'sealed' AND service = '@model-connection' AND account = 'llm'`,
      );
    } finally {
      await admin.end();
    }
    const moved = await rejection(resolve('sealed', 'llm'));
    expect(moved.kind).toBe('internal');
    expect(JSON.stringify(moved)).not.toContain('SECRET');
    const credentials = await fx.client.rpc.listCredentials(
      { tenantId: 'sealed', service: '', actor: undefined },
      asPlatform,
    );
    expect(credentials.credentials).toEqual([]);
  });

  it('does not count connection keys against the credential quota', async () => {
    await fx.restart({ TENANT_TIERS: JSON.stringify({ default: { credentialRecords: 1 } }) });
    try {
      await create('quota-split', 'a');
      await create('quota-split', 'b');
      await fx.client.rpc.saveCredential(
        {
          tenantId: 'quota-split',
          service: 'google',
          account: '',
          secretJson: '{"t":"x"}',
          grant: '',
          callId: '',
          actor: undefined,
        },
        asPlatform,
      );
      const second = await rejection(
        fx.client.rpc.saveCredential(
          {
            tenantId: 'quota-split',
            service: 'github',
            account: '',
            secretJson: '{"t":"x"}',
            grant: '',
            callId: '',
            actor: undefined,
          },
          asPlatform,
        ),
      );
      expect(second.details).toMatchObject({ quota: 'credential_records', limit: 1 });
    } finally {
      await fx.restart();
    }
  });

  it('answers another tenant exactly like a missing connection, on every method', async () => {
    await create('owner', 'shared-name');
    const missing = [
      () =>
        fx.client.rpc.getModelConnection({ tenantId: 'intruder', name: 'shared-name', actor: undefined }, asPlatform),
      () => resolve('intruder', 'shared-name'),
      () =>
        fx.client.rpc.updateModelConnection(
          {
            tenantId: 'intruder',
            name: 'shared-name',
            apiKey: 'sk-intruder-key-000',
            replaceModels: false,
            models: [],
            actor: undefined,
          },
          asPlatform,
        ),
      () =>
        fx.client.rpc.deleteModelConnection(
          { tenantId: 'intruder', name: 'shared-name', actor: undefined },
          asPlatform,
        ),
    ];
    for (const attempt of missing)
      expect(await rejection(attempt())).toMatchObject({ kind: 'not_found', code: 'MODEL_CONNECTION_NOT_FOUND' });
    expect(
      (await fx.client.rpc.listModelConnections({ tenantId: 'intruder', actor: undefined }, asPlatform)).connections,
    ).toEqual([]);
    // The same name is the intruder's own to take, and stays apart from the owner's.
    await create('intruder', 'shared-name', { apiKey: 'sk-intruder-own-key-9999' });
    expect((await resolve('owner', 'shared-name')).apiKey).toBe(KEY);
    expect((await resolve('intruder', 'shared-name')).apiKey).toBe('sk-intruder-own-key-9999');
  });

  it('rotates the key and changes the URL in new versions, refusing a stale expected version', async () => {
    await create('rotating', 'llm');
    const rotated = await fx.client.rpc.updateModelConnection(
      {
        tenantId: 'rotating',
        name: 'llm',
        apiKey: 'sk-rotated-key-wxyz',
        replaceModels: false,
        models: [],
        expectedVersion: 1,
        actor: undefined,
      },
      asPlatform,
    );
    expect(rotated.connection).toMatchObject({ version: 2, keyPreview: '…wxyz', models: ['m-1'], baseUrl: URL_OK });
    expect((await resolve('rotating', 'llm')).apiKey).toBe('sk-rotated-key-wxyz');
    const moved = await fx.client.rpc.updateModelConnection(
      {
        tenantId: 'rotating',
        name: 'llm',
        baseUrl: 'http://127.0.0.1:10/v2',
        replaceModels: true,
        models: [],
        actor: undefined,
      },
      asPlatform,
    );
    expect(moved.connection).toMatchObject({
      version: 3,
      baseUrl: 'http://127.0.0.1:10/v2',
      models: [],
      keyPreview: '…wxyz',
    });
    expect((await resolve('rotating', 'llm')).apiKey).toBe('sk-rotated-key-wxyz');
    const stale = await rejection(
      fx.client.rpc.updateModelConnection(
        {
          tenantId: 'rotating',
          name: 'llm',
          apiKey: 'sk-lost-update-0000',
          replaceModels: false,
          models: [],
          expectedVersion: 2,
          actor: undefined,
        },
        asPlatform,
      ),
    );
    expect(stale).toMatchObject({ code: 'VERSION_CONFLICT', details: { expectedVersion: 2, currentVersion: 3 } });
    expect((await resolve('rotating', 'llm')).apiKey).toBe('sk-rotated-key-wxyz');
  });

  it('deletes the connection with its key, and refuses a second create of a taken name', async () => {
    await create('deleting', 'llm');
    expect((await rejection(create('deleting', 'llm'))).code).toBe('MODEL_CONNECTION_EXISTS');
    await fx.client.rpc.deleteModelConnection({ tenantId: 'deleting', name: 'llm', actor: undefined }, asPlatform);
    expect((await rejection(resolve('deleting', 'llm'))).code).toBe('MODEL_CONNECTION_NOT_FOUND');
    // The name is free again, with a fresh key row.
    await create('deleting', 'llm', { apiKey: 'sk-second-life-key-7777' });
    expect((await resolve('deleting', 'llm')).apiKey).toBe('sk-second-life-key-7777');
  });

  it('refuses a base URL that reaches inside, naming the reason and never the URL', async () => {
    for (const [baseUrl, reason] of [
      ['http://localhost:8080/v1', 'loopback'],
      ['http://127.0.0.2/v1', 'loopback'],
      ['http://10.1.2.3/v1', 'private'],
      ['http://169.254.169.254/latest', 'metadata'],
      ['http://[::1]/v1', 'loopback'],
      ['http://2130706434/v1', 'loopback'],
      ['ftp://example.com/v1', 'scheme'],
      ['http://user:SECRET@127.0.0.1/v1', 'userinfo'],
    ] as const) {
      const refused = await rejection(create('egress', 'llm', { baseUrl }));
      expect(refused, baseUrl).toMatchObject({ kind: 'invalid_argument', code: 'EGRESS_REFUSED', details: { reason } });
      expect(refused.message).not.toContain(baseUrl);
    }
    await create('egress', 'llm');
    const refused = await rejection(
      fx.client.rpc.updateModelConnection(
        {
          tenantId: 'egress',
          name: 'llm',
          baseUrl: 'http://192.168.1.1/v1',
          replaceModels: false,
          models: [],
          actor: undefined,
        },
        asPlatform,
      ),
    );
    expect(refused).toMatchObject({ code: 'EGRESS_REFUSED', details: { reason: 'private' } });
    expect((await resolve('egress', 'llm')).connection?.baseUrl).toBe(URL_OK);
  });

  it('refuses bad fields naming them, and never echoes a key', async () => {
    const cases: Array<[Partial<credentialV1.CreateModelConnectionRequest>, string]> = [
      [{ name: '-bad' }, 'name'],
      [{ name: 'x'.repeat(65) }, 'name'],
      [{ apiKey: '' }, 'api_key'],
      [{ apiKey: 'sk SECRET with spaces' }, 'api_key'],
      [{ apiKey: 'x'.repeat(4_097) }, 'api_key'],
      [{ models: ['a', 'a'] }, 'models'],
      [{ models: [''] }, 'models'],
      [{ baseUrl: '' }, 'base_url'],
    ];
    for (const [fields, field] of cases) {
      const refused = await rejection(create('fields', 'llm', fields));
      expect(refused, JSON.stringify(fields).slice(0, 80)).toMatchObject({
        code: 'INVALID_MODEL_CONNECTION',
        details: { field },
      });
      expect(refused.message).not.toContain('SECRET');
    }
    expect(
      (await fx.client.rpc.listModelConnections({ tenantId: 'fields', actor: undefined }, asPlatform)).connections,
    ).toEqual([]);
  });

  it("holds each tenant to its tier's limit, and refuses every create and resolve where the tier has none", async () => {
    await create('small-tenant', 'a', { tier: 'small' });
    await create('small-tenant', 'b', { tier: 'small' });
    const over = await rejection(create('small-tenant', 'c', { tier: 'small' }));
    expect(over).toMatchObject({
      kind: 'resource_exhausted',
      code: 'QUOTA_EXCEEDED',
      details: { quota: 'model_connections', limit: 2, tier: 'small' },
    });
    // Concurrent creates at the limit: exactly one fits.
    await fx.client.rpc.deleteModelConnection({ tenantId: 'small-tenant', name: 'b', actor: undefined }, asPlatform);
    const raced = await Promise.allSettled(
      ['x', 'y', 'z'].map((name) => create('small-tenant', name, { tier: 'small' })),
    );
    expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);

    const off = await rejection(create('off-tenant', 'a', { tier: 'off' }));
    expect(off).toMatchObject({
      kind: 'permission_denied',
      code: 'NOT_PERMITTED_BY_TIER',
      details: { what: 'modelConnections' },
    });
    // Turned off after the fact: the connection stays (it may be deleted) but is not handed out.
    await create('later-off', 'a');
    expect((await rejection(resolve('later-off', 'a', 'off'))).code).toBe('NOT_PERMITTED_BY_TIER');
    expect((await resolve('later-off', 'a')).apiKey).toBe(KEY);
  });

  it('audits writes and key reads under @model-connection, never the key', async () => {
    await create('audit-mc', 'llm');
    await resolve('audit-mc', 'llm');
    await rejection(resolve('audit-mc', 'nope'));
    const { events } = await fx.client.rpc.listAuditEvents({ tenantId: 'audit-mc', beforeId: 0, limit: 0 }, asPlatform);
    expect(events.map((e) => `${e.service}:${e.account}:${e.action}:${e.outcome}`)).toEqual([
      '@model-connection:nope:get:not_found',
      '@model-connection:llm:get:ok',
      '@model-connection:llm:save:ok',
    ]);
    expect(events[1]).toMatchObject({ subject: 'orchestrator', runId: 'run-1' });
    expect(JSON.stringify(events)).not.toContain('SECRET');
  });
});
