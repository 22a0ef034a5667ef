import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CredentialDecryptError, KeyringError, KeyUnavailableError } from './crypto-errors.js';
import { openRecord, rewrapKey, sealRecord } from './envelope.js';
import { LocalKeyring } from './local-keyring.js';

const key = () => randomBytes(32).toString('base64');
const identity = { tenantId: 'acme', service: 'google', account: 'primary', version: 1 };
const plaintext = Buffer.from('{"token":"SECRET"}');

function flip(buffer: Buffer, at: number): Buffer {
  const copy = Buffer.from(buffer);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}

describe('envelope encryption', () => {
  const keyring = new LocalKeyring({ active: 'k1', keys: { k1: key() } });

  it('round-trips under a fresh data key per record', async () => {
    const a = await sealRecord(keyring, identity, plaintext);
    const b = await sealRecord(keyring, identity, plaintext);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
    expect(a.wrappedKey.bytes.equals(b.wrappedKey.bytes)).toBe(false);
    expect(a.ciphertext.includes(Buffer.from('SECRET'))).toBe(false);
    expect((await openRecord(keyring, identity, a)).equals(plaintext)).toBe(true);
  });

  it('refuses any single flipped byte of the ciphertext or the wrapped key', async () => {
    const sealed = await sealRecord(keyring, identity, plaintext);
    for (let at = 0; at < sealed.ciphertext.length; at++) {
      await expect(
        openRecord(keyring, identity, { ...sealed, ciphertext: flip(sealed.ciphertext, at) }),
      ).rejects.toMatchObject({ code: 'CREDENTIAL_DECRYPT_FAILED', stage: 'decrypt' });
    }
    for (let at = 0; at < sealed.wrappedKey.bytes.length; at++) {
      const wrappedKey = { ...sealed.wrappedKey, bytes: flip(sealed.wrappedKey.bytes, at) };
      await expect(openRecord(keyring, identity, { ...sealed, wrappedKey })).rejects.toBeInstanceOf(
        CredentialDecryptError,
      );
    }
  });

  it('binds the record to its tenant, service, account and version', async () => {
    const sealed = await sealRecord(keyring, identity, plaintext);
    for (const moved of [{ tenantId: 'globex' }, { service: 'github' }, { account: 'work' }, { version: 2 }]) {
      await expect(openRecord(keyring, { ...identity, ...moved }, sealed)).rejects.toMatchObject({
        code: 'CREDENTIAL_DECRYPT_FAILED',
      });
    }
  });

  it('names a key it does not hold', async () => {
    const sealed = await sealRecord(keyring, identity, plaintext);
    const other = new LocalKeyring({ active: 'k2', keys: { k2: key() } });
    await expect(openRecord(other, identity, sealed)).rejects.toEqual(new KeyUnavailableError('k1'));
  });

  it('re-wraps a data key under the active key without touching the ciphertext', async () => {
    const k1 = key();
    const sealed = await sealRecord(new LocalKeyring({ active: 'k1', keys: { k1 } }), identity, plaintext);
    const k2 = key();
    const rotated = new LocalKeyring({ active: 'k2', keys: { k1, k2 } });
    const wrappedKey = await rewrapKey(rotated, identity, sealed.wrappedKey);
    expect(wrappedKey.keyId).toBe('k2');
    const withoutK1 = new LocalKeyring({ active: 'k2', keys: { k2 } });
    expect(
      (await openRecord(withoutK1, identity, { ciphertext: sealed.ciphertext, wrappedKey })).equals(plaintext),
    ).toBe(true);
  });
});

describe('local keyring', () => {
  it('refuses keys of the wrong length, a missing active key, bad JSON, and two sources, without echoing key material', () => {
    expect(() => new LocalKeyring({ active: 'k1', keys: { k1: randomBytes(16).toString('base64') } })).toThrow(
      /exactly 32 bytes/,
    );
    expect(() => new LocalKeyring({ active: 'k9', keys: { k1: key() } })).toThrow(/active key 'k9'/);
    const secretish = '{"active":"k1","keys":{"k1":"SECRET-KEY-MATERIAL"';
    expect(() => LocalKeyring.load({ json: secretish })).toThrow(KeyringError);
    expect(() => LocalKeyring.load({ json: secretish })).not.toThrow(/SECRET/);
    expect(() => LocalKeyring.load({ json: '{}', file: '/x' })).toThrow(/exactly one/);
    expect(() => LocalKeyring.load({})).toThrow(/exactly one/);
    expect(() => LocalKeyring.load({ file: '/nonexistent/keyring.json' })).toThrow(/ENOENT/);
  });
});
