import { PlatformError, errors } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../http-errors.js';
import { ApiKeyVerifier, isApiKey } from './api-keys.js';

// The api's cache in front of the credential service's VerifyApiKey: one call per key per
// interval, a revocation drops the key at once (also while a verification is in flight), uses
// go out in one batch.
const KEY = 'plk_0123456789abcdef_secret';

function port(answer: () => Promise<{ keyId: string; tenantId: string; role: string; expiresAt?: Date }>) {
  const calls = { verify: 0, uses: [] as Array<Array<{ keyId: string; usedAt: Date }>> };
  return {
    calls,
    port: {
      verifyKey: async () => {
        calls.verify++;
        return { expiresAt: undefined, ...(await answer()) };
      },
      recordKeyUse: async (uses: Array<{ keyId: string; usedAt: Date }>) => {
        calls.uses.push(uses);
        return {};
      },
    },
  };
}

const options = { cacheMs: 60_000, maxEntries: 10, useFlushMs: 3_600_000, logger: { warn: () => undefined } };
const IDENTITY = { keyId: '0123456789abcdef', tenantId: 'acme', role: 'developer' };

describe('API key verification at the api', () => {
  it('tells a key from a JWT by its prefix', () => {
    expect(isApiKey(KEY)).toBe(true);
    expect(isApiKey('eyJhbGciOiJIUzI1NiJ9.e30.x')).toBe(false);
  });

  it('asks the credential service once, then answers from its cache until the key is forgotten', async () => {
    // The credential service refuses the key once it is revoked; the cache must ask it again then.
    let revoked = false;
    const { calls, port: calls_ } = port(async () => {
      if (revoked) throw new PlatformError('unauthenticated', 'API_KEY_REVOKED', 'the API key has been revoked');
      return IDENTITY;
    });
    const verifier = new ApiKeyVerifier(calls_, options);
    expect(await verifier.verify(KEY)).toEqual({ keyId: IDENTITY.keyId, tenantId: 'acme', role: 'developer' });
    await verifier.verify(KEY);
    expect(calls.verify).toBe(1);
    revoked = true;
    verifier.forget(IDENTITY.keyId);
    await expect(verifier.verify(KEY)).rejects.toMatchObject({ code: 'API_KEY_REVOKED' });
    expect(calls.verify).toBe(2);
    await verifier.close();
  });

  it('does not keep an answer that was in flight when the revocation arrived', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { port: calls_ } = port(async () => {
      await gate;
      return IDENTITY;
    });
    const verifier = new ApiKeyVerifier(calls_, options);
    const pending = verifier.verify(KEY);
    verifier.forget(IDENTITY.keyId);
    release();
    await expect(pending).rejects.toMatchObject({ code: 'API_KEY_REVOKED' });
    await verifier.close();
  });

  it("turns the service's refusal into a 401 with its code, and an outage into 503 AUTH_UNAVAILABLE", async () => {
    const revoked = new ApiKeyVerifier(
      port(async () => {
        throw new PlatformError('unauthenticated', 'API_KEY_REVOKED', 'the API key has been revoked');
      }).port,
      options,
    );
    const error = await revoked.verify(KEY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ statusCode: 401, code: 'API_KEY_REVOKED' });
    const down = new ApiKeyVerifier(
      port(async () => {
        throw errors.unavailable('UNAVAILABLE', 'connection refused');
      }).port,
      options,
    );
    expect(await down.verify(KEY).catch((e: unknown) => e)).toMatchObject({
      statusCode: 503,
      code: 'AUTH_UNAVAILABLE',
    });
    await revoked.close();
    await down.close();
  });

  it('never trusts a key past its expiry, whatever the cache allows', async () => {
    let now = 1_000_000;
    const { calls, port: calls_ } = port(async () => ({ ...IDENTITY, expiresAt: new Date(now + 10) }));
    const verifier = new ApiKeyVerifier(calls_, { ...options, now: () => now });
    await verifier.verify(KEY);
    now += 20;
    await verifier.verify(KEY);
    expect(calls.verify).toBe(2);
    await verifier.close();
  });

  it('sends the uses since the last flush as one batch, the latest per key', async () => {
    const { calls, port: calls_ } = port(async () => IDENTITY);
    const verifier = new ApiKeyVerifier(calls_, options);
    await verifier.verify(KEY);
    await verifier.verify(KEY);
    await verifier.flushUses();
    expect(calls.uses).toHaveLength(1);
    expect(calls.uses[0]).toEqual([{ keyId: IDENTITY.keyId, usedAt: expect.any(Date) }]);
    await verifier.flushUses();
    expect(calls.uses).toHaveLength(1);
    await verifier.close();
  });
});
