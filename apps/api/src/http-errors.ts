import { z } from 'zod';
import { isPlatformError, type ErrorKind } from '@platform/service-kit';
import { ApiErrorCodes, type ApiErrorCode } from './error-codes.js';
import { NamedError } from '@platform/contracts';

/** The JSON body of every error response: a stable machine-readable code and a human message. */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().meta({
        description: 'Stable, machine-readable; clients branch on it (docs/api.md#errors).',
        example: 'INVALID_BODY',
      }),
      message: z.string().meta({ description: 'For people: what was wrong and what to do.' }),
      details: z
        .record(z.string(), z.unknown())
        .optional()
        .meta({ description: 'Fields a client can act on, when the error has any.' }),
    }),
  })
  .meta({ id: 'ErrorBody' });
export type ErrorBody = z.infer<typeof ErrorBody>;

export class HttpError extends NamedError {
  constructor(
    readonly statusCode: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

const statusByKind: Record<ErrorKind, number> = {
  invalid_argument: 400,
  not_found: 404,
  already_exists: 409,
  failed_precondition: 409,
  unauthenticated: 401,
  permission_denied: 403,
  resource_exhausted: 429,
  payload_too_large: 413,
  unavailable: 503,
  deadline_exceeded: 504,
  cancelled: 499,
  internal: 500,
};

/**
 * Codes a service sends whose HTTP status is not its gRPC status's (`statusByKind`): gRPC has no
 * "gone" or "precondition failed" of HTTP's kind (a stale `If-Match` is FAILED_PRECONDITION there,
 * 412 here; a deleted agent FAILED_PRECONDITION or NOT_FOUND there, 410 here).
 */
const statusByCode: Readonly<Record<string, number>> = {
  STALE_REVISION: 412,
  PRECONDITION_REQUIRED: 428,
  AGENT_DELETED: 410,
  // The orchestrator's FAILED_PRECONDITION: the card at the URL is not one the platform can use.
  REMOTE_AGENT_CARD_UNREADABLE: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
};

/** A stable code at the start of a status message (`STALE_REVISION: revision 3 is not 4`). */
const LEADING_CODE = /^([A-Z][A-Z0-9_]{2,63}): /;

/**
 * The stable code of a service's error: the one its trailers carry, else (a status sent without
 * them, so the code is the bare status name) the code its message starts with.
 */
function codeOf(error: { code: string; message: string }): string {
  if (!GRPC_STATUS_NAMES.has(error.code)) return error.code;
  return LEADING_CODE.exec(error.message)?.[1] ?? error.code;
}
const GRPC_STATUS_NAMES = new Set([
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
]);

/** Fastify's own errors that reach the error handler, mapped to our codes. */
const fastifyCodes: Record<string, { status: number; code: ApiErrorCode; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    code: ApiErrorCodes.INVALID_JSON,
    message: 'the request body is not valid JSON',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: ApiErrorCodes.INVALID_JSON, message: 'the request body is empty' },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: ApiErrorCodes.PAYLOAD_TOO_LARGE,
    message: 'the request body is too large',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: ApiErrorCodes.UNSUPPORTED_MEDIA_TYPE,
    message: 'send the body as application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: ApiErrorCodes.INVALID_CONTENT_LENGTH,
    message: 'the content-length header does not match the body',
  },
  FST_ERR_BAD_URL: {
    status: 400,
    code: ApiErrorCodes.INVALID_URL,
    message: 'the path is not valid percent-encoded UTF-8; encode each segment with encodeURIComponent',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    status: 400,
    code: ApiErrorCodes.INVALID_PATH,
    message: 'a path segment is longer than the api accepts',
  },
};

/** Maps anything thrown in a route to a status and error body; unknown errors hide their message. */
export function toHttpError(error: unknown): {
  status: number;
  body: ErrorBody;
  internal: boolean;
  retryAfterSeconds?: number;
} {
  if (error instanceof HttpError) {
    return {
      status: error.statusCode,
      body: {
        error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
      },
      internal: false,
    };
  }
  if (isPlatformError(error)) {
    const internal = error.kind === 'internal';
    const code = codeOf(error);
    const status = statusByCode[code] ?? statusByKind[error.kind];
    return {
      status,
      // An internal error's own code (e.g. a service's) stays in the logs: clients see the documented INTERNAL.
      body: internal
        ? { error: { code: ApiErrorCodes.INTERNAL, message: 'internal error' } }
        : { error: { code, message: error.message, ...(error.details ? { details: error.details } : {}) } },
      internal,
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    };
  }
  const fastifyCode = (error as { code?: string }).code;
  const known = fastifyCode ? fastifyCodes[fastifyCode] : undefined;
  if (known)
    return {
      status: known.status,
      body: { error: { code: known.code, message: known.message ?? (error as Error).message } },
      internal: false,
    };
  const statusCode = (error as { statusCode?: number }).statusCode;
  if (statusCode && statusCode >= 400 && statusCode < 500) {
    return {
      status: statusCode,
      body: { error: { code: ApiErrorCodes.BAD_REQUEST, message: (error as Error).message } },
      internal: false,
    };
  }
  return { status: 500, body: { error: { code: ApiErrorCodes.INTERNAL, message: 'internal error' } }, internal: true };
}
