import { PlatformError } from '@platform/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformMetadata, startCredentialFixture, type CredentialFixture } from './test-support/credential-fixture.js';

let fx: CredentialFixture;
const secret = JSON.stringify({ access_token: 'ya29.SECRET-acme-token', refresh_token: 'r-SECRET' });

beforeAll(async () => {
  fx = await startCredentialFixture('credential_service');
});
afterAll(() => fx.stop());

const asPlatform = { metadata: platformMetadata() };

function save(tenantId: string, service: string, account: string, secretJson: string, expectedVersion?: number) {
  return fx.client.rpc.saveCredential(
    { tenantId, service, account, secretJson, expectedVersion, grant: '', callId: '', actor: { subject: 'user-1' } },
    asPlatform,
  );
}
function get(tenantId: string, service: string, account = '') {
  return fx.client.rpc.getCredential(
    { tenantId, service, account, grant: '', callId: '', actor: { subject: 'user-1' } },
    asPlatform,
  );
}
async function rejection(promise: Promise<unknown>): Promise<PlatformError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlatformError);
  return err as PlatformError;
}

describe('CredentialService for platform callers', () => {
  it('saves, reads back byte for byte, lists without secrets, and deletes', async () => {
    const odd = '{"token":  "é-SECRET", "n":1}';
    const saved = await save('acme', 'google', '', odd);
    expect(saved.credential).toMatchObject({ service: 'google', account: 'primary', version: 1, keyId: 'k1' });
    const read = await get('acme', 'google');
    expect(read.secretJson).toBe(odd);
    const listed = await fx.client.rpc.listCredentials({ tenantId: 'acme', service: '', actor: undefined }, asPlatform);
    expect(listed.credentials.map((c) => `${c.service}/${c.account}@${c.version}`)).toContain('google/primary@1');
    expect(JSON.stringify(listed)).not.toContain('SECRET');
    await fx.client.rpc.deleteCredential(
      { tenantId: 'acme', service: 'google', account: 'primary', actor: undefined },
      asPlatform,
    );
    expect((await rejection(get('acme', 'google'))).code).toBe('CREDENTIAL_NOT_FOUND');
  });

  it('bumps the version on every save and refuses a stale expected version', async () => {
    await save('acme', 'github', 'work', secret, 0);
    await save('acme', 'github', 'work', secret, 1);
    const conflict = await rejection(save('acme', 'github', 'work', secret, 1));
    expect(conflict).toMatchObject({ kind: 'failed_precondition', code: 'VERSION_CONFLICT' });
    expect(conflict.details).toMatchObject({ expectedVersion: 1, currentVersion: 2 });
    expect((await rejection(save('acme', 'github', 'other', secret, 3))).code).toBe('VERSION_CONFLICT');
    expect((await get('acme', 'github', 'work')).credential?.version).toBe(2);
  });

  it('lets exactly one of many concurrent refreshes of one version win', async () => {
    await save('acme', 'slack', '', secret);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => save('acme', 'slack', '', JSON.stringify({ n: i }), 1)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await get('acme', 'slack')).credential?.version).toBe(2);
  });

  it('answers another tenant exactly like a missing credential, on every method', async () => {
    await save('acme', 'dropbox', '', secret);
    for (const attempt of [
      () => get('globex', 'dropbox'),
      () =>
        fx.client.rpc.deleteCredential(
          { tenantId: 'globex', service: 'dropbox', account: '', actor: undefined },
          asPlatform,
        ),
    ]) {
      expect(await rejection(attempt())).toMatchObject({ kind: 'not_found', code: 'CREDENTIAL_NOT_FOUND' });
    }
    expect(
      (await fx.client.rpc.listCredentials({ tenantId: 'globex', service: '', actor: undefined }, asPlatform))
        .credentials,
    ).toEqual([]);
    expect(
      (await fx.client.rpc.listAuditEvents({ tenantId: 'globex', beforeId: 0, limit: 0 }, asPlatform)).events.every(
        (e) => e.service !== 'dropbox' || e.outcome !== 'ok',
      ),
    ).toBe(true);
    // A version-guarded save from the other tenant cannot touch acme's record either.
    expect((await rejection(save('globex', 'dropbox', '', secret, 1))).code).toBe('VERSION_CONFLICT');
    expect((await get('acme', 'dropbox')).secretJson).toBe(secret);
  });

  it('refuses bad names, non-object and oversized secrets with stable codes, storing nothing', async () => {
    expect((await rejection(save('acme', 'Google!', '', secret))).code).toBe('INVALID_SERVICE');
    expect((await rejection(save('acme', 'google', 'a b', secret))).code).toBe('INVALID_ACCOUNT');
    expect((await rejection(save('', 'google', '', secret))).code).toBe('INVALID_TENANT_ID');
    const notJson = await rejection(save('acme', 'google', '', 'SECRET-not-json'));
    expect(notJson.code).toBe('INVALID_SECRET');
    expect(notJson.message).not.toContain('SECRET');
    expect((await rejection(save('acme', 'google', '', '["a"]'))).code).toBe('INVALID_SECRET');
    expect((await rejection(save('acme', 'google', '', JSON.stringify({ big: 'x'.repeat(70 * 1024) })))).code).toBe(
      'SECRET_TOO_LARGE',
    );
    expect((await rejection(save('acme', 'google', '', secret, -1))).code).toBe('INVALID_EXPECTED_VERSION');
    expect((await rejection(get('acme', 'google'))).code).toBe('CREDENTIAL_NOT_FOUND');
  });

  it('refuses callers without a platform token or grant', async () => {
    const noAuth = fx.client.rpc.getCredential({
      tenantId: 'acme',
      service: 'google',
      account: '',
      grant: '',
      callId: '',
      actor: undefined,
    });
    expect(await rejection(noAuth)).toMatchObject({ kind: 'unauthenticated', code: 'CALLER_UNAUTHENTICATED' });
    const wrongToken = fx.client.rpc.listCredentials(
      { tenantId: 'acme', service: '', actor: undefined },
      { metadata: platformMetadata('x'.repeat(40)) },
    );
    expect((await rejection(wrongToken)).code).toBe('CALLER_UNAUTHENTICATED');
  });

  it('audits every read and write with who did it, and never the secret', async () => {
    await save('audited', 'google', '', secret);
    await get('audited', 'google');
    await rejection(get('audited', 'google', 'missing'));
    const { events } = await fx.client.rpc.listAuditEvents({ tenantId: 'audited', beforeId: 0, limit: 0 }, asPlatform);
    expect(events.map((e) => `${e.action}:${e.outcome}:${e.account}:${e.actorKind}:${e.subject}`)).toEqual([
      'get:not_found:missing:platform:user-1',
      'get:ok:primary:platform:user-1',
      'save:ok:primary:platform:user-1',
    ]);
    expect(JSON.stringify(events)).not.toContain('SECRET');
    const older = await fx.client.rpc.listAuditEvents(
      { tenantId: 'audited', beforeId: events[0]!.id, limit: 1 },
      asPlatform,
    );
    expect(older.events.map((e) => e.id)).toEqual([events[1]!.id]);
  });

  it('keeps the order of answers in the audit trail, and writes queued read audit rows when it stops', async () => {
    // A long batch window: only the save's flush and the shutdown write these Get rows.
    await fx.restart({ CREDENTIAL_READ_AUDIT_FLUSH_MS: '60000' });
    try {
      await save('ordered', 'google', '', secret);
      await get('ordered', 'google');
      await save('ordered', 'google', '', secret, 1);
      await get('ordered', 'google');
      await fx.restart();
      const { events } = await fx.client.rpc.listAuditEvents(
        { tenantId: 'ordered', beforeId: 0, limit: 0 },
        asPlatform,
      );
      expect(events.map((e) => `${e.action}:${e.outcome}`)).toEqual(['get:ok', 'save:ok', 'get:ok', 'save:ok']);
    } finally {
      await fx.restart();
    }
  });
});
