import { ModelError, type ModelErrorKind } from '@platform/agent-loop';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { parseRetryAfterMs } from './retry-after.js';

/** What the classifier may say about the failed call. Nothing here may hold a credential except `secrets`. */
export interface OpenAIErrorContext {
  /** Provider label, e.g. `openai`. */
  provider: string;
  model: string;
  /** The caller's signal: an abort surfaces in many shapes (see {@link classifyOpenAIError}). */
  signal?: AbortSignal;
  /** The per-request timeout, quoted in `timeout` messages. */
  timeoutMs?: number;
  /** Server URL, quoted (origin only, never credentials) when the provider cannot be reached. */
  baseURL?: string;
  /** Setting that holds the API key, named in `auth` messages (default `OPENAI_API_KEY`). */
  apiKeyName?: string;
  /** Strings that must never appear in a message (the API key): removed from provider text. */
  secrets?: readonly string[];
  /** Clock for HTTP-date `retry-after` headers (tests). */
  now?: number;
}

/** Provider error details, whether from an HTTP error response or an `error` event inside a stream. */
interface ProviderFailure {
  status: number | undefined;
  code: string | undefined;
  type: string | undefined;
  message: string;
}

// OpenAI echoes a masked key ("sk-abc****wxyz") in 401 messages; drop even the masked form.
const KEY_LIKE = /\bsk-[A-Za-z0-9_*-]{4,}/g;

function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out.replace(KEY_LIKE, 'sk-[redacted]');
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

// `instanceof APIError` narrows to APIError<any, any, any>; this keeps the declared field types.
function isAPIError(error: unknown): error is APIError {
  return error instanceof APIError;
}

function failureOf(error: APIError): ProviderFailure {
  // The provider's own sentence, without the "<status> " prefix the client adds to error.message.
  const body: unknown = error.error;
  const message =
    typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string'
      ? body.message
      : error.message;
  return { status: error.status, code: error.code ?? undefined, type: error.type ?? undefined, message };
}

/** The one place that reads provider-specific statuses and codes (see model-errors.ts in agent-loop). */
function kindOf({ status, code, type, message }: ProviderFailure): ModelErrorKind {
  // Quota and rate limit share 429; only the code tells "wait" from "pay".
  if (code === 'insufficient_quota' || type === 'insufficient_quota') return 'quota_exhausted';
  if (status === 429 || code === 'rate_limit_exceeded') return 'rate_limit';
  if (code === 'context_length_exceeded') return 'context_overflow';
  // OpenAI-compatible servers (vLLM, older Azure) send the wording without the code.
  if ((status === 400 || status === undefined) && /maximum context length/i.test(message)) return 'context_overflow';
  if (status === 401 || status === 403 || code === 'invalid_api_key') return 'auth';
  // No status: an `error` event in the middle of a stream, i.e. the provider failed after answering 200.
  if (status === undefined || status >= 500) return 'server';
  return 'bad_request';
}

function describe(
  kind: ModelErrorKind,
  failure: ProviderFailure,
  context: OpenAIErrorContext,
  retryAfterMs: number | undefined,
): string {
  const { provider, model } = context;
  const where = `${failure.status === undefined ? '' : `HTTP ${failure.status}, `}model "${model}"`;
  const said = redact(failure.message, context.secrets).trim().replace(/\.?$/, '.');
  switch (kind) {
    case 'quota_exhausted':
      return `${provider} quota exhausted (${where}): ${said} Check the account's plan and billing; retrying will not help.`;
    case 'rate_limit': {
      const wait = retryAfterMs === undefined ? 'Retry with backoff' : `Retry after ${retryAfterMs} ms`;
      return `${provider} rate limit reached (${where}): ${said} ${wait}; if it persists, lower the request rate or raise the account's limits.`;
    }
    case 'context_overflow':
      return `The prompt does not fit the context window of ${provider} (${where}): ${said} Trim or summarize the conversation, or use a model with a larger context window.`;
    case 'auth':
      return `${provider} rejected the credentials (${where}): ${said} Check ${context.apiKeyName ?? 'OPENAI_API_KEY'} and that the key has access to model "${model}".`;
    case 'server':
      return `${provider} failed (${where}): ${said} This is usually transient; retry later.`;
    case 'bad_request':
      return failure.status === 404
        ? `${provider} could not find the requested model or endpoint (${where}): ${said} Check the model name, the base URL and that the account has access to the model.`
        : `${provider} rejected the request as invalid (${where}): ${said} This is a bug in the request, not a transient failure; retrying will not help.`;
    default:
      return `${provider} call failed (${where}): ${said}`;
  }
}

function origin(baseURL: string | undefined): string {
  if (!baseURL) return '';
  try {
    return ` at ${new URL(baseURL).origin}`;
  } catch {
    return '';
  }
}

/**
 * Maps anything the `openai` client (or our use of it) throws to a {@link ModelError} of exactly one
 * kind, so the loop's retry policy never inspects provider details:
 *
 * - 429 `insufficient_quota` → `quota_exhausted`; other 429 → `rate_limit` (+ `retryAfterMs`);
 * - `context_length_exceeded` / "maximum context length" → `context_overflow`;
 * - 401/403 → `auth`; 404 and other 4xx → `bad_request`; 5xx and connection failures → `server`;
 * - `APIConnectionTimeoutError` → `timeout`; `APIUserAbortError` or an aborted caller signal → `cancelled`.
 *
 * A `ModelError` passes through unchanged. Anything unrecognised becomes `server` (the provider
 * answered something we could not use), with the original error as `cause`.
 */
export function classifyOpenAIError(error: unknown, context: OpenAIErrorContext): ModelError {
  if (error instanceof ModelError) return error;
  const { provider, model } = context;
  const base = { cause: error, provider, model };
  // Order matters: both abort and timeout errors are APIConnectionError/APIError subclasses.
  if (error instanceof APIUserAbortError)
    return new ModelError('cancelled', `The ${provider} request (model "${model}") was cancelled by the caller.`, base);
  if (error instanceof APIConnectionTimeoutError) {
    const limit = context.timeoutMs === undefined ? 'in time' : `within ${context.timeoutMs} ms`;
    return new ModelError(
      'timeout',
      `${provider} did not answer ${limit} (model "${model}"): ${error.message} The provider may be slow or overloaded; retry, or raise the timeout.`,
      base,
    );
  }
  // Once the response headers are in, the client no longer wraps aborts: reading the body rejects
  // with a bare AbortError, and a stream simply ends. The caller's signal is the reliable witness.
  if (context.signal?.aborted || isAbortError(error)) {
    return new ModelError('cancelled', `The ${provider} request (model "${model}") was cancelled by the caller.`, base);
  }
  if (error instanceof APIConnectionError) {
    const detail = redact(error.message, context.secrets);
    return new ModelError(
      'server',
      `${provider} could not be reached${origin(context.baseURL)} (model "${model}"): ${detail} Check the network and the base URL; retry later.`,
      base,
    );
  }
  if (isAPIError(error)) {
    const failure = failureOf(error);
    const kind = kindOf(failure);
    const retryAfterMs = kind === 'rate_limit' ? parseRetryAfterMs(error.headers, context.now) : undefined;
    return new ModelError(kind, describe(kind, failure, context, retryAfterMs), {
      ...base,
      status: error.status,
      retryAfterMs,
    });
  }
  const detail = redact(error instanceof Error ? error.message : String(error), context.secrets);
  return new ModelError('server', `${provider} call failed unexpectedly (model "${model}"): ${detail}`, base);
}

/**
 * Whether a provider error is a refusal of the request's structured output: a 400 naming
 * `response_format` (the model or server does not support it, or the schema is refused).
 */
export function rejectsResponseFormat(error: unknown): boolean {
  if (!isAPIError(error) || error.status !== 400) return false;
  const param = typeof error.param === 'string' ? error.param : '';
  return param.startsWith('response_format') || /response_format|json_schema/i.test(failureOf(error).message);
}
