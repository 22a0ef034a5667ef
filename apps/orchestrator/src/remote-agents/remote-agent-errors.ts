import type { PlatformError } from '@platform/service-kit';
import { codedError } from '../coded-error.js';
import { ErrorCodes } from '../error-codes.js';

/** A RemoteAgentService error (coded-error.ts). */
export const remoteAgentError = codedError;

/** INVALID_REMOTE_AGENT naming the field at fault. */
export function invalidRemoteAgent(field: string, message: string): PlatformError {
  return remoteAgentError('invalid_argument', ErrorCodes.INVALID_REMOTE_AGENT, `${field}: ${message}`, {
    details: { field, issues: [{ field, message }] },
  });
}
