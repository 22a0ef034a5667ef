import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { isConnectionLoss } from './connection-loss.js';
import { SharedErrorCodes } from './error-catalogue.js';
import { ErrorKinds, PlatformError, type ErrorKind } from './errors.js';
import { isUnstorableText } from './unstorable-text.js';

/** Code of the UNAVAILABLE status sent when a handler lost a dependency's connection (see {@link isConnectionLoss}). */
export const DEPENDENCY_UNAVAILABLE = SharedErrorCodes.DEPENDENCY_UNAVAILABLE;

const ERROR_CODE_KEY = 'platform-error-code';
const ERROR_DETAILS_KEY = 'platform-error-details';
const RETRY_AFTER_KEY = 'platform-retry-after';

const statusByKind: Record<ErrorKind, status> = {
  invalid_argument: status.INVALID_ARGUMENT,
  not_found: status.NOT_FOUND,
  already_exists: status.ALREADY_EXISTS,
  failed_precondition: status.FAILED_PRECONDITION,
  unauthenticated: status.UNAUTHENTICATED,
  permission_denied: status.PERMISSION_DENIED,
  resource_exhausted: status.RESOURCE_EXHAUSTED,
  payload_too_large: status.OUT_OF_RANGE,
  unavailable: status.UNAVAILABLE,
  deadline_exceeded: status.DEADLINE_EXCEEDED,
  cancelled: status.CANCELLED,
  internal: status.INTERNAL,
};

const kindByStatus = new Map<status, ErrorKind>(
  ErrorKinds.filter((k) => k !== 'payload_too_large').map((k) => [statusByKind[k], k]),
);

/**
 * JSON with every character outside printable ASCII as a `\u` escape: a metadata value may hold
 * printable ASCII only (grpc-js refuses anything else, and the call then ends with no answer),
 * while details quote client text (a filter, a name) that may be any Unicode. JSON.parse reads it back unchanged.
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Server edge: turns any thrown value into a gRPC status, keeping a PlatformError's code and details in trailers. */
export function toGrpcError(error: unknown): Partial<ServiceError> {
  const platformError =
    error instanceof PlatformError
      ? error
      : isConnectionLoss(error)
        ? new PlatformError(
            'unavailable',
            DEPENDENCY_UNAVAILABLE,
            'a dependency of this service (e.g. its database) is unreachable; try again shortly',
            { retryAfterSeconds: 1 },
          )
        : isUnstorableText(error)
          ? new PlatformError(
              'invalid_argument',
              SharedErrorCodes.INVALID_CONTENT,
              'the request holds text that cannot be stored (the NUL character, or characters that are not UTF-8); send well-formed Unicode without NUL',
            )
          : undefined;
  const metadata = new Metadata();
  if (!platformError) {
    metadata.set(ERROR_CODE_KEY, SharedErrorCodes.INTERNAL);
    return { code: status.INTERNAL, details: 'internal error', metadata };
  }
  metadata.set(ERROR_CODE_KEY, platformError.code);
  metadata.set('platform-error-kind', platformError.kind);
  if (platformError.details) metadata.set(ERROR_DETAILS_KEY, asciiJson(platformError.details));
  if (platformError.retryAfterSeconds !== undefined)
    metadata.set(RETRY_AFTER_KEY, String(platformError.retryAfterSeconds));
  return { code: statusByKind[platformError.kind], details: platformError.message, metadata };
}

function firstString(metadata: Metadata | undefined, key: string): string | undefined {
  const value = metadata?.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}

/** Client edge: turns a gRPC error back into a PlatformError with the server's code and details. */
export function fromGrpcError(error: unknown): PlatformError {
  const serviceError = error as Partial<ServiceError>;
  if (typeof serviceError?.code !== 'number') {
    return new PlatformError(
      'internal',
      SharedErrorCodes.INTERNAL,
      error instanceof Error ? error.message : String(error),
      {
        cause: error,
      },
    );
  }
  const metadata = serviceError.metadata;
  const sentKind = firstString(metadata, 'platform-error-kind') as ErrorKind | undefined;
  const kind =
    sentKind && ErrorKinds.includes(sentKind) ? sentKind : (kindByStatus.get(serviceError.code) ?? 'internal');
  const code = firstString(metadata, ERROR_CODE_KEY) ?? status[serviceError.code] ?? SharedErrorCodes.INTERNAL;
  const detailsText = firstString(metadata, ERROR_DETAILS_KEY);
  const retryAfter = firstString(metadata, RETRY_AFTER_KEY);
  let details: Record<string, unknown> | undefined;
  try {
    details = detailsText ? (JSON.parse(detailsText) as Record<string, unknown>) : undefined;
  } catch {
    details = undefined;
  }
  return new PlatformError(kind, code, serviceError.details ?? serviceError.message ?? 'gRPC call failed', {
    cause: error,
    details,
    retryAfterSeconds: retryAfter ? Number(retryAfter) : undefined,
  });
}
