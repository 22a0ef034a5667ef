import { randomBytes } from 'node:crypto';
import { createLogger, createPgPool } from '@platform/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialDatabase } from './credential-database.js';
import { CredentialStore } from './credential-store.js';
import { ReadAuditBatcher } from './read-audit-batcher.js';
import { LocalKeyring } from './crypto/local-keyring.js';
import { keyUsage, MissingKeyError, rewrapAll, rewrapBatch } from './key-rotation.js';
import { CREDENTIAL_SCHEMA, startCredentialServer } from './server.js';
import {
  configFor,
  platformMetadata,
  startCredentialFixture,
  testLogger,
  type CredentialFixture,
} from './test-support/credential-fixture.js';

const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('base64');
const ring = (active: string, keys: Record<string, string>) => JSON.stringify({ active, keys });
const asPlatform = { metadata: platformMetadata() };

let fx: CredentialFixture;
beforeAll(async () => {
  fx = await startCredentialFixture('credential_rotation', { CREDENTIAL_KEYRING: ring('k1', { k1 }) });
});
afterAll(() => fx.stop());

const save = (tenantId: string, account: string, value: unknown, expectedVersion?: number) =>
  fx.client.rpc.saveCredential(
    {
      tenantId,
      service: 'google',
      account,
      secretJson: JSON.stringify(value),
      expectedVersion,
      grant: '',
      callId: '',
      actor: undefined,
    },
    asPlatform,
  );
const get = (tenantId: string, account: string) =>
  fx.client.rpc.getCredential(
    { tenantId, service: 'google', account, grant: '', callId: '', actor: undefined },
    asPlatform,
  );

function replicaDatabase(): { db: CredentialDatabase; end: () => Promise<void> } {
  const pool = createPgPool({
    url: fx.url,
    applicationName: 'rewrap-test',
    searchPath: CREDENTIAL_SCHEMA,
    maxConnections: 4,
    logger: createLogger({ service: 't', level: 'silent' }),
  });
  return { db: new CredentialDatabase(pool), end: () => pool.end() };
}

describe('key rotation', () => {
  it('moves every row to the new key while reads and writes run, losing and breaking nothing', async () => {
    const accounts = Array.from({ length: 60 }, (_, i) => `a${i}`);
    for (const account of accounts) await save(`t${account.length % 3}`, account, { n: 0, account });
    await fx.restart({ CREDENTIAL_KEYRING: ring('k2', { k1, k2 }) });
    expect((await save('t0', 'fresh', { n: 0 })).credential?.keyId).toBe('k2');

    const keys = new LocalKeyring({ active: 'k2', keys: { k1, k2 } });
    const replicas = [replicaDatabase(), replicaDatabase()];
    let stop = false;
    const expected = new Map(accounts.map((a) => [a, 0]));
    const traffic = (async () => {
      let round = 0;
      while (!stop) {
        round += 1;
        await Promise.all(
          accounts.slice(0, 12).map(async (account) => {
            const tenant = `t${account.length % 3}`;
            const current = await get(tenant, account);
            expect(JSON.parse(current.secretJson)).toMatchObject({ account });
            await save(tenant, account, { n: round, account }, current.credential!.version);
            expected.set(account, round);
          }),
        );
      }
      return round;
    })();
    // Two replicas rewrap in small batches at once; SKIP LOCKED keeps their batches apart.
    const moved = await Promise.all(replicas.map((r) => rewrapAll(r.db, keys, 5)));
    stop = true;
    const rounds = await traffic;
    expect(rounds).toBeGreaterThan(0);
    expect(moved[0]! + moved[1]!).toBeLessThanOrEqual(accounts.length);

    const usage = await keyUsage(replicas[0]!.db, keys);
    expect(usage.find((u) => u.keyId === 'k1')?.credentials).toBe(0);
    for (const account of accounts) {
      const current = await get(`t${account.length % 3}`, account);
      expect(current.credential?.keyId).toBe('k2');
      expect(JSON.parse(current.secretJson)).toEqual({ n: expected.get(account), account });
    }
    expect(await rewrapBatch(replicas[0]!.db, keys, 5)).toBe(0);
    await Promise.all(replicas.map((r) => r.end()));

    // Retired: k1 is gone from the keyring, and nothing needs it.
    await fx.restart({ CREDENTIAL_KEYRING: ring('k2', { k2 }) });
    const report = await fx.client.rpc.getKeyUsage({}, asPlatform);
    expect(report.keys).toEqual([{ keyId: 'k2', credentials: accounts.length + 1, inKeyring: true, active: true }]);
  });

  it('refuses to boot without a key a row needs, naming the key id', async () => {
    // Every row is on k2 now: a keyring holding only k3 must not start.
    const start = startCredentialServer(
      await configFor(fx.url, ring('k3', { k3: randomBytes(32).toString('base64') }), fx.jwks),
      testLogger,
    );
    const err = await start.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MissingKeyError);
    expect((err as Error).message).toContain("'k2' (61 credentials)");
  });

  it('refuses a retired key: a keyring that drops a key still in use fails to boot, and a row wrapped by it cannot be read', async () => {
    await fx.restart({ CREDENTIAL_KEYRING: ring('k1', { k1, k2 }) });
    await save('t9', 'old', { n: 1 });
    const err = await startCredentialServer(await configFor(fx.url, ring('k2', { k2 }), fx.jwks), testLogger).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(/'k1' \(1 credentials\)/);
    // A replica still on the old keyring is not fooled either: a key it lacks is a typed error.
    const keys = new LocalKeyring({ active: 'k2', keys: { k2 } });
    const { db, end } = replicaDatabase();
    try {
      expect((await keyUsage(db, keys)).find((u) => u.keyId === 'k1')).toMatchObject({
        credentials: 1,
        inKeyring: false,
      });
      expect(await rewrapBatch(db, keys, 10)).toBe(0);
      const readAudit = new ReadAuditBatcher(db.pool, {
        durable: true,
        flushDelayMs: 0,
        maxQueuedRows: 100,
        logger: testLogger,
      });
      const read = new CredentialStore(db, keys, readAudit).get(
        { tenantId: 't9', service: 'google', account: 'old' },
        { actorKind: 'platform', subject: '', tool: '', runId: '', callId: '' },
      );
      await expect(read).rejects.toMatchObject({ code: 'KEY_UNAVAILABLE', keyId: 'k1' });
    } finally {
      await end();
    }
  });
});
