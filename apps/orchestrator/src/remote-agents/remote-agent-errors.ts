import { PlatformError, type ErrorKind } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';

type PlatformErrorOptions = ConstructorParameters<typeof PlatformError>[3];

/** A RemoteAgentService error: the stable code leads the message and travels in the trailers. */
export function remoteAgentError(
  kind: ErrorKind,
  code: string,
  message: string,
  options?: PlatformErrorOptions,
): PlatformError {
  return new PlatformError(kind, code, `${code}: ${message}`, options);
}

/** INVALID_REMOTE_AGENT naming the field at fault. */
export function invalidRemoteAgent(field: string, message: string): PlatformError {
  return remoteAgentError('invalid_argument', ErrorCodes.INVALID_REMOTE_AGENT, `${field}: ${message}`, {
    details: { field, issues: [{ field, message }] },
  });
}
