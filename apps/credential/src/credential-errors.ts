import { PlatformError, errors } from '@platform/service-kit';
import { ErrorCodes } from './error-codes.js';

interface Named {
  service: string;
  account: string;
}

/** The same answer for "missing" and "another tenant's": nothing tells one from the other. */
export function credentialNotFound(key: Named): PlatformError {
  return errors.notFound(
    ErrorCodes.CREDENTIAL_NOT_FOUND,
    `no credential for service '${key.service}' account '${key.account}'`,
    { details: { service: key.service, account: key.account } },
  );
}

export function versionConflict(key: Named, expected: number, current: number): PlatformError {
  return new PlatformError(
    'failed_precondition',
    ErrorCodes.VERSION_CONFLICT,
    `credential '${key.service}/${key.account}' is at version ${current}, not ${expected}`,
    {
      details: { service: key.service, account: key.account, expectedVersion: expected, currentVersion: current },
    },
  );
}
