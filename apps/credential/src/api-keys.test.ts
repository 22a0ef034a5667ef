import { PlatformError } from '@platform/service-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformMetadata, startCredentialFixture, type CredentialFixture } from './test-support/credential-fixture.js';

// API keys and the audit of administrative actions in the credential service, on real Postgres:
// the key is returned once and stored as a hash; verification answers tenant and role, and
// refuses a wrong secret, a revoked and an expired key; another tenant's key is not found; the
// quota counts live keys; the audit is per tenant and append-only.
let fx: CredentialFixture;
const asPlatform = { metadata: platformMetadata() };

beforeAll(async () => {
  fx = await startCredentialFixture('credential_api_keys', {
    TENANT_TIERS: JSON.stringify({ small: { apiKeys: 2 } }),
  });
});
afterAll(() => fx.stop());

const create = (tenantId: string, name: string, role = 'member', extra: { expiresAt?: Date; tier?: string } = {}) =>
  fx.client.rpc.createApiKey(
    { tenantId, name, role, expiresAt: extra.expiresAt, actor: { subject: 'alice' }, tier: extra.tier ?? '' },
    asPlatform,
  );
const verify = (key: string) => fx.client.rpc.verifyApiKey({ key }, asPlatform);

async function rejection(promise: Promise<unknown>): Promise<PlatformError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlatformError);
  return err as PlatformError;
}

describe('API keys', () => {
  it('returns the key once, stores only its hash, and verifies it as its tenant and role', async () => {
    const created = await create('acme', 'billing backend', 'developer');
    expect(created.secret).toMatch(/^plk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created.key).toMatchObject({ name: 'billing backend', role: 'developer', createdBy: 'alice' });
    expect(created.secret.startsWith(`${created.key!.prefix}_`)).toBe(true);
    expect(await verify(created.secret)).toMatchObject({
      keyId: created.key!.keyId,
      tenantId: 'acme',
      role: 'developer',
    });

    const listed = await fx.client.rpc.listApiKeys({ tenantId: 'acme' }, asPlatform);
    expect(listed.keys.map((k) => k.keyId)).toContain(created.key!.keyId);
    // The random part: everything after `plk_<16 hex>_` (it may itself hold "_").
    const random = created.secret.slice('plk_'.length + 17);
    expect(random).toHaveLength(43);
    expect(JSON.stringify(listed)).not.toContain(random);
    const pool = new pg.Pool({ connectionString: fx.url });
    try {
      const { rows } = await pool.query<{ row: string }>(
        'SELECT row_to_json(k)::text AS row FROM credential.api_keys k',
      );
      expect(rows.map((r) => r.row).join('\n')).not.toContain(random);
    } finally {
      await pool.end();
    }
  });

  it('refuses a wrong secret, a malformed key, a revoked and an expired key', async () => {
    const { secret, key } = await create('acme', 'to revoke');
    const tampered = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    expect((await rejection(verify(tampered))).code).toBe('INVALID_API_KEY');
    expect((await rejection(verify('plk_nothing'))).code).toBe('INVALID_API_KEY');
    const revoked = await fx.client.rpc.revokeApiKey(
      { tenantId: 'acme', keyId: key!.keyId, actor: undefined },
      asPlatform,
    );
    expect(revoked.key?.revokedAt).toBeInstanceOf(Date);
    expect((await rejection(verify(secret))).code).toBe('API_KEY_REVOKED');

    const soon = await create('acme', 'short', 'viewer', { expiresAt: new Date(Date.now() + 3_600_000) });
    expect(await verify(soon.secret)).toMatchObject({ role: 'viewer' });
    const pool = new pg.Pool({ connectionString: fx.url });
    try {
      await pool.query("UPDATE credential.api_keys SET expires_at = now() - interval '1 second' WHERE key_id = $1", [
        soon.key!.keyId,
      ]);
    } finally {
      await pool.end();
    }
    expect((await rejection(verify(soon.secret))).code).toBe('API_KEY_EXPIRED');
    expect((await rejection(create('acme', 'past', 'member', { expiresAt: new Date(Date.now() - 1_000) }))).code).toBe(
      'INVALID_KEY_EXPIRY',
    );
    expect((await rejection(create('acme', 'bad role', 'owner'))).code).toBe('INVALID_KEY_ROLE');
    expect((await rejection(create('acme', 'bad\nname'))).code).toBe('INVALID_KEY_NAME');
  });

  it("answers another tenant's key as not found, and lists only the tenant's own", async () => {
    const { key } = await create('acme', 'acme only');
    expect(
      (
        await rejection(
          fx.client.rpc.revokeApiKey({ tenantId: 'globex', keyId: key!.keyId, actor: undefined }, asPlatform),
        )
      ).code,
    ).toBe('API_KEY_NOT_FOUND');
    const globex = await fx.client.rpc.listApiKeys({ tenantId: 'globex' }, asPlatform);
    expect(globex.keys).toEqual([]);
  });

  it("counts a tenant's live keys against its tier's quota; a revoked one frees its place", async () => {
    const first = await create('tiny', 'one', 'member', { tier: 'small' });
    await create('tiny', 'two', 'member', { tier: 'small' });
    const refused = await rejection(create('tiny', 'three', 'member', { tier: 'small' }));
    expect(refused.code).toBe('QUOTA_EXCEEDED');
    expect(refused.details).toMatchObject({ quota: 'api_keys', limit: 2 });
    await fx.client.rpc.revokeApiKey({ tenantId: 'tiny', keyId: first.key!.keyId, actor: undefined }, asPlatform);
    expect((await create('tiny', 'three', 'member', { tier: 'small' })).key?.name).toBe('three');
  });

  it('records last uses in a batch, never moving one back', async () => {
    const { key } = await create('acme', 'used');
    const later = new Date('2030-01-02T00:00:00Z');
    await fx.client.rpc.recordKeyUse({ uses: [{ keyId: key!.keyId, usedAt: later }] }, asPlatform);
    await fx.client.rpc.recordKeyUse(
      { uses: [{ keyId: key!.keyId, usedAt: new Date('2029-01-01T00:00:00Z') }] },
      asPlatform,
    );
    const listed = await fx.client.rpc.listApiKeys({ tenantId: 'acme' }, asPlatform);
    expect(listed.keys.find((k) => k.keyId === key!.keyId)?.lastUsedAt?.toISOString()).toBe(later.toISOString());
  });

  it('refuses callers without the platform token', async () => {
    expect((await rejection(fx.client.rpc.listApiKeys({ tenantId: 'acme' }))).code).toBe('CALLER_UNAUTHENTICATED');
    expect((await rejection(fx.client.rpc.verifyApiKey({ key: 'plk_x' }))).code).toBe('CALLER_UNAUTHENTICATED');
  });
});

describe('the audit of administrative actions', () => {
  const action = (operation: string) => ({
    id: 0,
    at: undefined,
    operation,
    method: 'POST',
    resource: 'keyId=0123456789abcdef',
    status: 201,
    role: 'admin',
    subject: 'key:0123456789abcdef',
    keyId: '0123456789abcdef',
    actingUser: 'bob',
    requestId: 'req-1',
  });

  it('appends actions per tenant and lists them newest first, paged', async () => {
    for (const op of ['createApiKey', 'revokeApiKey', 'updateAgent'])
      await fx.client.rpc.recordAdminAction({ tenantId: 'acme', action: action(op) }, asPlatform);
    await fx.client.rpc.recordAdminAction({ tenantId: 'globex', action: action('createApiKey') }, asPlatform);
    const page = await fx.client.rpc.listAdminActions({ tenantId: 'acme', beforeId: 0, limit: 2 }, asPlatform);
    expect(page.actions.map((a) => a.operation)).toEqual(['updateAgent', 'revokeApiKey']);
    expect(page.actions[0]).toMatchObject({ actingUser: 'bob', keyId: '0123456789abcdef', role: 'admin' });
    const next = await fx.client.rpc.listAdminActions(
      { tenantId: 'acme', beforeId: page.actions[1]!.id, limit: 10 },
      asPlatform,
    );
    expect(next.actions.map((a) => a.operation)).toEqual(['createApiKey']);
    const globex = await fx.client.rpc.listAdminActions({ tenantId: 'globex', beforeId: 0, limit: 10 }, asPlatform);
    expect(globex.actions).toHaveLength(1);
  });

  it('refuses an action without its operation or with a role that is none', async () => {
    expect(
      (await rejection(fx.client.rpc.recordAdminAction({ tenantId: 'acme', action: action('') }, asPlatform))).code,
    ).toBe('INVALID_ADMIN_ACTION');
    expect(
      (
        await rejection(
          fx.client.rpc.recordAdminAction({ tenantId: 'acme', action: { ...action('x'), role: 'owner' } }, asPlatform),
        )
      ).code,
    ).toBe('INVALID_ADMIN_ACTION');
  });
});
