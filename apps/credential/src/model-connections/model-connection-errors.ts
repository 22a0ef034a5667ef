import { QUOTA_NAMES } from '@platform/contracts';
import { errors, PlatformError, quotaExceeded } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';

/**
 * The `credentials` service under which a model connection's key is sealed and audited (its
 * account is the connection's name). No credential can have it: credential service names start
 * with a letter or digit (CredentialService in libs/contracts), so neither a runner's grant nor the
 * credential routes can reach these rows.
 */
export const MODEL_CONNECTION_KEY_SERVICE = '@model-connection';

/** The same answer for "missing" and "another tenant's". */
export function modelConnectionNotFound(name: string): PlatformError {
  return errors.notFound(ErrorCodes.MODEL_CONNECTION_NOT_FOUND, `no model connection '${name}'`, {
    details: { name },
  });
}

export function modelConnectionExists(name: string): PlatformError {
  return new PlatformError(
    'already_exists',
    ErrorCodes.MODEL_CONNECTION_EXISTS,
    `a model connection named '${name}' exists; update it or pick another name`,
    { details: { name } },
  );
}

export function modelConnectionVersionConflict(name: string, expected: number, current: number): PlatformError {
  return new PlatformError(
    'failed_precondition',
    ErrorCodes.VERSION_CONFLICT,
    `model connection '${name}' is at version ${current}, not ${expected}`,
    { details: { name, expectedVersion: expected, currentVersion: current } },
  );
}

export function modelConnectionQuotaExceeded(quota: { max: number; tier: string }): PlatformError {
  return quotaExceeded({
    quota: QUOTA_NAMES.modelConnections,
    limit: quota.max,
    tier: quota.tier,
    message: `this tenant has ${quota.max} model connections, the most its tier allows; delete one first`,
  });
}

/** The tier's `modelConnections` limit is 0: the operator turned bringing one's own model off. */
export function modelConnectionsNotPermitted(tier: string): PlatformError {
  return new PlatformError(
    'permission_denied',
    ErrorCodes.NOT_PERMITTED_BY_TIER,
    `model connections are not available to tier '${tier}'`,
    { details: { what: 'modelConnections', tier } },
  );
}
