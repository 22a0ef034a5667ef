import { PlatformError } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';
import { NamedError } from '@platform/contracts';

/**
 * A ciphertext or wrapped key failed authentication: it was altered, or it was moved to another
 * tenant, service, account or version than the one it was written for. Nothing is returned.
 * The message never carries key or secret material.
 */
export class CredentialDecryptError extends PlatformError {
  constructor(
    readonly stage: 'unwrap' | 'decrypt',
    readonly keyId: string,
    options: { cause?: unknown } = {},
  ) {
    super(
      'internal',
      ErrorCodes.CREDENTIAL_DECRYPT_FAILED,
      `the stored credential failed authentication at ${stage} (key ${keyId}); it was altered or moved`,
      {
        cause: options.cause,
        details: { stage, keyId },
      },
    );
  }
}

/** A record is wrapped by a key-encryption key the key provider does not hold. */
export class KeyUnavailableError extends PlatformError {
  constructor(readonly keyId: string) {
    super('internal', ErrorCodes.KEY_UNAVAILABLE, `key-encryption key '${keyId}' is not in the keyring`, {
      details: { keyId },
    });
  }
}

/** The keyring's own configuration is unusable (bad JSON, wrong key length, no active key). */
export class KeyringError extends NamedError {
  readonly code = ErrorCodes.KEYRING_INVALID;
  constructor(message: string) {
    super(message);
  }
}
