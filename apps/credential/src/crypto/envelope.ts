import { randomBytes } from 'node:crypto';
import { AES_KEY_BYTES, openAesGcm, sealAesGcm } from './aes-gcm.js';
import { CredentialDecryptError } from './crypto-errors.js';
import type { KeyProvider, WrappedKey } from './key-provider.js';

/** What a ciphertext is bound to: moving it to any other tenant, service, account or version breaks it. */
export interface RecordIdentity {
  tenantId: string;
  service: string;
  account: string;
  version: number;
}

/** A record as stored: the secret under its data key, and the data key wrapped by a KEK. */
export interface SealedRecord {
  ciphertext: Buffer;
  wrappedKey: WrappedKey;
}

/**
 * The associated data of both layers. JSON of an array is unambiguous whatever characters the
 * fields hold (no delimiter a value could forge); the label versions the format.
 */
function recordContext(identity: RecordIdentity, layer: 'data' | 'key'): Buffer {
  return Buffer.from(
    JSON.stringify([
      'platform.credential.v1',
      layer,
      identity.tenantId,
      identity.service,
      identity.account,
      identity.version,
    ]),
    'utf8',
  );
}

/** Encrypts a secret under a fresh random data key, and wraps that key with the provider's active KEK. */
export async function sealRecord(
  keys: KeyProvider,
  identity: RecordIdentity,
  plaintext: Buffer,
): Promise<SealedRecord> {
  const dataKey = randomBytes(AES_KEY_BYTES);
  try {
    const ciphertext = sealAesGcm(dataKey, plaintext, recordContext(identity, 'data'));
    const wrappedKey = await keys.wrap(dataKey, recordContext(identity, 'key'));
    return { ciphertext, wrappedKey };
  } finally {
    dataKey.fill(0);
  }
}

/** Unwraps the data key and decrypts; any tampering or misplacement is a `CredentialDecryptError`. */
export async function openRecord(keys: KeyProvider, identity: RecordIdentity, sealed: SealedRecord): Promise<Buffer> {
  const dataKey = await keys.unwrap(sealed.wrappedKey, recordContext(identity, 'key'));
  try {
    return openAesGcm(dataKey, sealed.ciphertext, recordContext(identity, 'data'));
  } catch (err) {
    throw new CredentialDecryptError('decrypt', sealed.wrappedKey.keyId, { cause: err });
  } finally {
    dataKey.fill(0);
  }
}

/** Re-wraps a record's data key under the active KEK; the ciphertext is untouched. */
export async function rewrapKey(keys: KeyProvider, identity: RecordIdentity, wrapped: WrappedKey): Promise<WrappedKey> {
  const context = recordContext(identity, 'key');
  const dataKey = await keys.unwrap(wrapped, context);
  try {
    return await keys.wrap(dataKey, context);
  } finally {
    dataKey.fill(0);
  }
}
