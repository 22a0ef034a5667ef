import { AgentLoopError } from './agent-loop-error.js';
/**
 * The one family of model-call failures. Adapters (libs/llm) classify every provider error into
 * exactly one kind; the loop's retry strategies are registered per kind (see model-retry.ts), so
 * no code outside the adapters inspects provider-specific status codes or messages.
 */
export type ModelErrorKind =
  /** Too many requests; `retryAfterMs` when the provider said how long to wait. */
  | 'rate_limit'
  /** The account's quota or credit is used up: retrying will not help. */
  | 'quota_exhausted'
  /** The request is larger than the model's context window. */
  | 'context_overflow'
  /** Bad or missing credentials, or no access to the model. */
  | 'auth'
  /** No answer within the request timeout. */
  | 'timeout'
  /** The provider failed (5xx, overloaded, connection reset). */
  | 'server'
  /** The provider rejected the request as malformed (other 4xx): our fault, not transient. */
  | 'bad_request'
  /** The caller cancelled the request. */
  | 'cancelled';

export interface ModelErrorOptions {
  cause?: unknown;
  /** HTTP status, when there was one. */
  status?: number;
  /** How long the provider asked us to wait before retrying. */
  retryAfterMs?: number;
  provider?: string;
  model?: string;
}

export class ModelError extends AgentLoopError {
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly provider: string | undefined;
  readonly model: string | undefined;

  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    options: ModelErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.provider = options.provider;
    this.model = options.model;
  }
}

export function isModelError(error: unknown): error is ModelError {
  return error instanceof ModelError;
}

/**
 * The provider refused the request's structured output (`responseFormat`): the model or the
 * provider does not support it, or refused the schema. A `bad_request`: retrying the same request
 * will not help, but the same question asked without `responseFormat` (JSON in text) may.
 */
export class ResponseFormatRejectedError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super('bad_request', message, options);
  }
}
