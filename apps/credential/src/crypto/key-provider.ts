/**
 * The port between envelope encryption and whoever holds the key-encryption keys (KEKs). The local
 * keyring implements it in-process; a Vault Transit or cloud KMS adapter implements the same four
 * members by calling its `encrypt`/`decrypt` (wrap/unwrap) endpoints, so KEKs never leave it.
 *
 * Contract:
 * - `wrap` encrypts a 32-byte data key under the active KEK, authenticated with `context`
 *   (the same bytes must be given to `unwrap`), and says which KEK id it used.
 * - `unwrap` reverses it with the named KEK; it throws `KeyUnavailableError` when it does not hold
 *   that id and `CredentialDecryptError` when authentication fails (altered bytes, other context).
 * - `keyIds` lists every id it can unwrap with; `activeKeyId` is the one `wrap` uses.
 */
export interface KeyProvider {
  readonly activeKeyId: string;
  keyIds(): readonly string[];
  wrap(dataKey: Buffer, context: Buffer): Promise<WrappedKey>;
  unwrap(wrapped: WrappedKey, context: Buffer): Promise<Buffer>;
}

/** A data key as stored: wrapped bytes plus the id of the KEK that wrapped them. */
export interface WrappedKey {
  keyId: string;
  bytes: Buffer;
}
