import pg from 'pg';
import { PlatformError } from '@platform/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_SCHEMA } from './server.js';
import { platformMetadata, startCredentialFixture, type CredentialFixture } from './test-support/credential-fixture.js';

let fx: CredentialFixture;
let admin: pg.Client;
const asPlatform = { metadata: platformMetadata() };
const SECRET = 'ya29.TAMPER-SECRET';

beforeAll(async () => {
  fx = await startCredentialFixture('credential_tamper');
  admin = new pg.Client({ connectionString: fx.url });
  await admin.connect();
  await admin.query(`SET search_path TO ${CREDENTIAL_SCHEMA}`);
});
afterAll(async () => {
  await admin.end();
  await fx.stop();
});

const save = (tenantId: string, service: string) =>
  fx.client.rpc.saveCredential(
    {
      tenantId,
      service,
      account: '',
      secretJson: JSON.stringify({ token: SECRET }),
      expectedVersion: undefined,
      grant: '',
      callId: '',
      actor: undefined,
    },
    asPlatform,
  );
const get = (tenantId: string, service: string) =>
  fx.client.rpc.getCredential({ tenantId, service, account: '', grant: '', callId: '', actor: undefined }, asPlatform);

async function decryptFailure(promise: Promise<unknown>): Promise<PlatformError> {
  const outcome = await promise.then(
    (value) => value,
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(PlatformError);
  expect((outcome as PlatformError).code).toBe('CREDENTIAL_DECRYPT_FAILED');
  expect(JSON.stringify(outcome)).not.toContain(SECRET);
  expect((outcome as Error).message).not.toContain(SECRET);
  return outcome as PlatformError;
}

describe('a tampered database', () => {
  it('one flipped byte of a stored ciphertext: a typed decrypt error, nothing returned, audited', async () => {
    await save('acme', 'google');
    await admin.query(
      `UPDATE credentials SET ciphertext = set_byte(ciphertext, 20, get_byte(ciphertext, 20) # 1) WHERE tenant_id = 'acme' AND service = 'google'`,
    );
    await decryptFailure(get('acme', 'google'));
    const { events } = await fx.client.rpc.listAuditEvents({ tenantId: 'acme', beforeId: 0, limit: 1 }, asPlatform);
    expect(events[0]).toMatchObject({ action: 'get', outcome: 'decrypt_failed' });
  });

  it('one flipped byte of a wrapped data key: a typed decrypt error', async () => {
    await save('acme', 'github');
    await admin.query(
      `UPDATE credentials SET wrapped_key = set_byte(wrapped_key, 3, get_byte(wrapped_key, 3) # 128) WHERE tenant_id = 'acme' AND service = 'github'`,
    );
    await decryptFailure(get('acme', 'github'));
  });

  it('a row copied into another tenant (or another account) fails to decrypt there', async () => {
    await save('acme', 'slack');
    await admin.query(`INSERT INTO credentials (tenant_id, service, account, version, key_id, wrapped_key, ciphertext)
                       SELECT 'globex', service, account, version, key_id, wrapped_key, ciphertext FROM credentials WHERE tenant_id = 'acme' AND service = 'slack'`);
    await decryptFailure(get('globex', 'slack'));
    await admin.query(`INSERT INTO credentials (tenant_id, service, account, version, key_id, wrapped_key, ciphertext)
                       SELECT tenant_id, service, 'other', version, key_id, wrapped_key, ciphertext FROM credentials WHERE tenant_id = 'acme' AND service = 'slack'`);
    await decryptFailure(
      fx.client.rpc.getCredential(
        { tenantId: 'acme', service: 'slack', account: 'other', grant: '', callId: '', actor: undefined },
        asPlatform,
      ),
    );
    // The original still decrypts.
    expect(JSON.parse((await get('acme', 'slack')).secretJson)).toEqual({ token: SECRET });
  });

  it('an older version restored over a newer one fails (the version is bound in)', async () => {
    await save('acme', 'dropbox');
    const { rows } = await admin.query<{ wrapped_key: Buffer; ciphertext: Buffer }>(
      `SELECT wrapped_key, ciphertext FROM credentials WHERE tenant_id = 'acme' AND service = 'dropbox'`,
    );
    await save('acme', 'dropbox');
    await admin.query(
      `UPDATE credentials SET wrapped_key = $1, ciphertext = $2 WHERE tenant_id = 'acme' AND service = 'dropbox'`,
      [rows[0]!.wrapped_key, rows[0]!.ciphertext],
    );
    await decryptFailure(get('acme', 'dropbox'));
  });

  it('keeps no secret in plaintext anywhere in the database', async () => {
    const { rows } = await admin.query<{ hit: boolean }>(
      `SELECT bool_or(position(convert_to($1, 'UTF8') in ciphertext) > 0 OR position(convert_to($1, 'UTF8') in wrapped_key) > 0) AS hit FROM credentials`,
      [SECRET],
    );
    expect(rows[0]!.hit).toBe(false);
    const audit = await admin.query(`SELECT * FROM audit_events`);
    expect(JSON.stringify(audit.rows)).not.toContain(SECRET);
  });
});
