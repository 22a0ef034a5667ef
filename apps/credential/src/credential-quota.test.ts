import { PlatformError } from '@platform/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformMetadata, startCredentialFixture, type CredentialFixture } from './test-support/credential-fixture.js';

// Issue 34, item 9: one tenant stored 18 MB of credentials in 300 records. Records and secret
// bytes per tenant are quotas of its tier (TENANT_TIERS), checked in the save's transaction.

let fx: CredentialFixture;
const asPlatform = { metadata: platformMetadata() };
const TIERS = {
  default: { credentialRecords: 3, credentialBytes: 1_000 },
  big: { credentialRecords: 10, credentialBytes: 100_000 },
};

beforeAll(async () => {
  fx = await startCredentialFixture('credential_quota', { TENANT_TIERS: JSON.stringify(TIERS) });
});
afterAll(async () => {
  await fx?.stop();
});

/** The PlatformError a call is refused with. */
async function rejectionOf(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

/** A secret whose JSON is exactly `bytes` long. */
const secretOf = (bytes: number): string => JSON.stringify({ t: 'x'.repeat(bytes - 8) });

function save(tenantId: string, account: string, secretJson: string, tier?: string) {
  return fx.client.rpc.saveCredential(
    {
      tenantId,
      service: 'google',
      account,
      secretJson,
      expectedVersion: undefined,
      grant: '',
      callId: '',
      actor: { subject: 'u' },
      ...(tier !== undefined ? { tier } : {}),
    },
    asPlatform,
  );
}

describe('credential quotas', () => {
  it("refuses the record past the tier's count with QUOTA_EXCEEDED credential_records, and audits the refusal", async () => {
    for (const account of ['a', 'b', 'c']) await save('records', account, secretOf(50));
    const error = await rejectionOf(save('records', 'd', secretOf(50)));
    expect(error).toMatchObject({
      kind: 'resource_exhausted',
      code: 'QUOTA_EXCEEDED',
      details: { quota: 'credential_records', limit: 3, tier: 'default' },
    });
    // Replacing a stored record is no new record.
    await save('records', 'a', secretOf(60));
    const { events } = await fx.client.rpc.listAuditEvents({ tenantId: 'records', beforeId: 0, limit: 0 }, asPlatform);
    expect(events.filter((e) => e.outcome === 'quota_exceeded').map((e) => e.account)).toEqual(['d']);
    // Another tenant has its own count; a larger tier goes on.
    await save('records-neighbour', 'd', secretOf(50));
    await save('records', 'd', secretOf(50), 'big');
  });

  it("refuses a secret that would pass the tier's bytes with QUOTA_EXCEEDED credential_bytes, counting a replaced secret once", async () => {
    await save('bytes', 'a', secretOf(600));
    const error = await rejectionOf(save('bytes', 'b', secretOf(401)));
    expect(error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'credential_bytes', limit: 1_000 } });
    expect(error.message).toContain('1001 bytes');
    await save('bytes', 'b', secretOf(400)); // exactly 1,000
    await save('bytes', 'a', secretOf(600)); // replacing a: its old bytes are not counted twice
    expect(await rejectionOf(save('bytes', 'a', secretOf(601)))).toMatchObject({
      details: { quota: 'credential_bytes' },
    });
  });

  it('lets exactly the quota through when saves race', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        save('racing', `acct-${i}`, secretOf(50)).then(
          () => 'saved',
          (err: { code?: string }) => err.code ?? 'other',
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'saved')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'QUOTA_EXCEEDED')).toHaveLength(7);
    expect(
      (await fx.client.rpc.listCredentials({ tenantId: 'racing', service: '', actor: { subject: 'u' } }, asPlatform))
        .credentials,
    ).toHaveLength(3);
  });
});
