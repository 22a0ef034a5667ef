import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { AES_KEY_BYTES, openAesGcm, sealAesGcm } from './aes-gcm.js';
import { CredentialDecryptError, KeyringError, KeyUnavailableError } from './crypto-errors.js';
import type { KeyProvider, WrappedKey } from './key-provider.js';

const KeyId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'key ids are 1-64 letters, digits, "_" or "-"');

/**
 * The keyring document, from CREDENTIAL_KEYRING or the file CREDENTIAL_KEYRING_FILE:
 * `{"active": "k2", "keys": {"k1": "<base64 of 32 random bytes>", "k2": "..."}}`.
 */
export const KeyringDocument = z.object({
  active: KeyId,
  keys: z.record(KeyId, z.string().min(1)),
});
export type KeyringDocument = z.infer<typeof KeyringDocument>;

/** Where the keyring comes from: inline JSON, or a mounted file holding the same JSON. */
export interface KeyringSource {
  json?: string | undefined;
  file?: string | undefined;
}

/** Key-encryption keys held in process memory, read once at boot; never written anywhere. */
export class LocalKeyring implements KeyProvider {
  readonly activeKeyId: string;
  private readonly keys: ReadonlyMap<string, Buffer>;

  constructor(document: KeyringDocument) {
    const keys = new Map<string, Buffer>();
    for (const [id, encoded] of Object.entries(document.keys)) {
      const key = Buffer.from(encoded, 'base64');
      if (key.length !== AES_KEY_BYTES || key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) {
        throw new KeyringError(`keyring key '${id}' must be the base64 of exactly ${AES_KEY_BYTES} bytes`);
      }
      keys.set(id, key);
    }
    if (!keys.has(document.active))
      throw new KeyringError(`keyring active key '${document.active}' is not among its keys`);
    this.activeKeyId = document.active;
    this.keys = keys;
  }

  /** Reads and validates the keyring from exactly one of its sources. */
  static load(source: KeyringSource): LocalKeyring {
    if (Boolean(source.json) === Boolean(source.file))
      throw new KeyringError('set exactly one of CREDENTIAL_KEYRING and CREDENTIAL_KEYRING_FILE');
    let text: string;
    try {
      text = source.json ?? readFileSync(source.file!, 'utf8');
    } catch (err) {
      throw new KeyringError(
        `cannot read CREDENTIAL_KEYRING_FILE: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Never echo the text: it holds key material.
      throw new KeyringError('the keyring is not valid JSON');
    }
    const document = KeyringDocument.safeParse(parsed);
    if (!document.success) {
      const issue = document.error.issues[0];
      throw new KeyringError(
        `the keyring is invalid at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    return new LocalKeyring(document.data);
  }

  keyIds(): readonly string[] {
    return [...this.keys.keys()];
  }

  async wrap(dataKey: Buffer, context: Buffer): Promise<WrappedKey> {
    return { keyId: this.activeKeyId, bytes: sealAesGcm(this.keys.get(this.activeKeyId)!, dataKey, context) };
  }

  async unwrap(wrapped: WrappedKey, context: Buffer): Promise<Buffer> {
    const key = this.keys.get(wrapped.keyId);
    if (!key) throw new KeyUnavailableError(wrapped.keyId);
    try {
      return openAesGcm(key, wrapped.bytes, context);
    } catch (err) {
      throw new CredentialDecryptError('unwrap', wrapped.keyId, { cause: err });
    }
  }
}
