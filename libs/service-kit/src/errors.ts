import { NamedError } from '@platform/contracts';

/**
 * The error family every service uses for failures a caller should see. Each carries a stable
 * `code` (e.g. `CONVERSATION_NOT_FOUND`) and a `kind` that the edges map to a gRPC status or an
 * HTTP status; nothing else in a service decides transport status codes.
 */
export const ErrorKinds = [
  'invalid_argument',
  'not_found',
  'already_exists',
  'failed_precondition',
  'unauthenticated',
  'permission_denied',
  'resource_exhausted',
  'payload_too_large',
  'unavailable',
  'deadline_exceeded',
  'cancelled',
  'internal',
] as const;
export type ErrorKind = (typeof ErrorKinds)[number];

export interface PlatformErrorOptions {
  cause?: unknown;
  /** Extra fields for the caller (safe to show: no secrets, no stack traces). */
  details?: Record<string, unknown>;
  /** For `resource_exhausted` / `unavailable`: when to try again, in seconds. */
  retryAfterSeconds?: number;
}

/** The root of service-kit's errors (`PlatformError`, `ConfigError`, …); each is named after its class. */
export class ServiceKitError extends NamedError {}

export class PlatformError extends ServiceKitError {
  readonly details: Record<string, unknown> | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    options: PlatformErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isPlatformError(error: unknown): error is PlatformError {
  return error instanceof PlatformError;
}

/** Short constructors for the common kinds. */
export const errors = {
  invalidArgument: (code: string, message: string, options?: PlatformErrorOptions) =>
    new PlatformError('invalid_argument', code, message, options),
  notFound: (code: string, message: string, options?: PlatformErrorOptions) =>
    new PlatformError('not_found', code, message, options),
  unavailable: (code: string, message: string, options?: PlatformErrorOptions) =>
    new PlatformError('unavailable', code, message, options),
  internal: (code: string, message: string, options?: PlatformErrorOptions) =>
    new PlatformError('internal', code, message, options),
};
