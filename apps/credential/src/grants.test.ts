import { PlatformError } from '@platform/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  grantKeys,
  platformMetadata,
  startCredentialFixture,
  type CredentialFixture,
} from './test-support/credential-fixture.js';

let fx: CredentialFixture;
const secret = JSON.stringify({ access_token: 'ya29.SECRET-grant' });

beforeAll(async () => {
  fx = await startCredentialFixture('credential_grants');
  await fx.client.rpc.saveCredential(
    {
      tenantId: 'acme',
      service: 'google',
      account: '',
      secretJson: secret,
      expectedVersion: undefined,
      grant: '',
      callId: '',
      actor: undefined,
    },
    { metadata: platformMetadata() },
  );
  await fx.client.rpc.saveCredential(
    {
      tenantId: 'acme',
      service: 'github',
      account: '',
      secretJson: secret,
      expectedVersion: undefined,
      grant: '',
      callId: '',
      actor: undefined,
    },
    { metadata: platformMetadata() },
  );
});
afterAll(() => fx.stop());

function getWith(grant: string, extra: { tenantId?: string; service?: string; callId?: string } = {}) {
  return fx.client.rpc.getCredential({
    tenantId: 'acme',
    service: 'google',
    account: '',
    grant,
    callId: 'call-1',
    actor: undefined,
    ...extra,
  });
}
async function rejection(promise: Promise<unknown>): Promise<PlatformError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlatformError);
  return err as PlatformError;
}

describe('credential grants', () => {
  it('let a tool call read and save the services it was granted, and audit the call', async () => {
    const grant = await fx.grant({});
    expect((await getWith(grant)).secretJson).toBe(secret);
    const saved = await fx.client.rpc.saveCredential({
      tenantId: 'acme',
      service: 'google',
      account: '',
      secretJson: '{"access_token":"refreshed"}',
      expectedVersion: 1,
      grant,
      callId: 'call-1',
      actor: { subject: 'ignored' },
    });
    expect(saved.credential?.version).toBe(2);
    const { events } = await fx.client.rpc.listAuditEvents(
      { tenantId: 'acme', beforeId: 0, limit: 2 },
      { metadata: platformMetadata() },
    );
    expect(events.map((e) => [e.action, e.outcome, e.actorKind, e.tool, e.runId, e.callId, e.subject])).toEqual([
      ['save', 'ok', 'grant', 'send_email', 'run-1', 'call-1', ''],
      ['get', 'ok', 'grant', 'send_email', 'run-1', 'call-1', ''],
    ]);
  });

  it('refuse an expired grant', async () => {
    const expired = await fx.issuer.issue(
      { tenantId: 'acme', runId: 'run-1', callId: 'call-1', tool: 't', services: ['google'], ttlSeconds: 1 },
      Date.now() - 60_000,
    );
    expect(await rejection(getWith(expired))).toMatchObject({ kind: 'unauthenticated', code: 'GRANT_EXPIRED' });
  });

  it('refuse a grant for another call', async () => {
    const other = await fx.grant({ callId: 'call-2' });
    expect(await rejection(getWith(other))).toMatchObject({ kind: 'permission_denied', code: 'GRANT_CALL_MISMATCH' });
    expect((await rejection(getWith(other, { callId: '' }))).code).toBe('GRANT_CALL_MISMATCH');
  });

  it('refuse a service the call was not granted, and audit the attempt as denied', async () => {
    const grant = await fx.grant({ services: ['google'] });
    expect(await rejection(getWith(grant, { service: 'github' }))).toMatchObject({
      kind: 'permission_denied',
      code: 'SERVICE_NOT_GRANTED',
    });
    const save = fx.client.rpc.saveCredential({
      tenantId: 'acme',
      service: 'github',
      account: '',
      secretJson: '{}',
      expectedVersion: undefined,
      grant,
      callId: 'call-1',
      actor: undefined,
    });
    expect((await rejection(save)).code).toBe('SERVICE_NOT_GRANTED');
    const { events } = await fx.client.rpc.listAuditEvents(
      { tenantId: 'acme', beforeId: 0, limit: 2 },
      { metadata: platformMetadata() },
    );
    expect(events.map((e) => `${e.action}:${e.service}:${e.outcome}`)).toEqual([
      'save:github:denied',
      'get:github:denied',
    ]);
  });

  it('refuse a grant of another tenant', async () => {
    const grant = await fx.grant({ tenantId: 'globex' });
    expect(await rejection(getWith(grant))).toMatchObject({ kind: 'permission_denied', code: 'GRANT_TENANT_MISMATCH' });
  });

  it("audit a refused grant of another tenant under the grant's tenant, never in the tenant it reached for", async () => {
    const grant = await fx.grant({ tenantId: 'globex', runId: 'globex-run-7', callId: 'globex-call-7' });
    expect((await rejection(getWith(grant, { callId: 'globex-call-7' }))).code).toBe('GRANT_TENANT_MISMATCH');
    const audit = async (tenantId: string) =>
      (await fx.client.rpc.listAuditEvents({ tenantId, beforeId: 0, limit: 100 }, { metadata: platformMetadata() }))
        .events;
    // acme's trail holds none of globex's ids; globex's holds its own runner's refused attempt.
    expect(JSON.stringify(await audit('acme'))).not.toMatch(/globex/);
    expect(
      (await audit('globex'))
        .filter((e) => e.runId === 'globex-run-7')
        .map((e) => [e.action, e.service, e.outcome, e.actorKind, e.runId, e.callId]),
    ).toEqual([['get', 'google', 'denied', 'grant', 'globex-run-7', 'globex-call-7']]);
  });

  it('refuse a grant signed by a key the service does not trust, or altered', async () => {
    const stranger = await grantKeys('g1');
    const forged = await stranger.issuer.issue({
      tenantId: 'acme',
      runId: 'run-1',
      callId: 'call-1',
      tool: 't',
      services: ['google'],
      ttlSeconds: 60,
    });
    expect((await rejection(getWith(forged))).code).toBe('GRANT_INVALID');
    const genuine = await fx.grant({});
    const [header, payload, signature] = genuine.split('.');
    const widened = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), svc: ['google', 'github'] }),
    ).toString('base64url');
    expect((await rejection(getWith(`${header}.${widened}.${signature}`, { service: 'github' }))).code).toBe(
      'GRANT_INVALID',
    );
    expect((await rejection(getWith('not-a-jwt'))).code).toBe('GRANT_INVALID');
  });

  it('never let a grant holder list, delete or read the audit trail', async () => {
    const grant = await fx.grant({});
    const asGrantHolder = { metadata: platformMetadata(grant) };
    expect(
      (
        await rejection(
          fx.client.rpc.listCredentials({ tenantId: 'acme', service: '', actor: undefined }, asGrantHolder),
        )
      ).code,
    ).toBe('CALLER_UNAUTHENTICATED');
    expect(
      (
        await rejection(
          fx.client.rpc.deleteCredential(
            { tenantId: 'acme', service: 'google', account: '', actor: undefined },
            asGrantHolder,
          ),
        )
      ).code,
    ).toBe('CALLER_UNAUTHENTICATED');
    expect(
      (await rejection(fx.client.rpc.listAuditEvents({ tenantId: 'acme', beforeId: 0, limit: 0 }, asGrantHolder))).code,
    ).toBe('CALLER_UNAUTHENTICATED');
    expect((await getWith(grant)).credential?.service).toBe('google');
  });
});
