import { ModelError } from '@platform/agent-loop';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { classifyOpenAIError, type OpenAIErrorContext } from './openai-errors.js';
import { parseRetryAfterMs } from './retry-after.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const KEY = 'sk-proj-VERYSECRETKEY123456';
const context: OpenAIErrorContext = {
  provider: 'openai',
  model: 'gpt-x',
  timeoutMs: 300,
  baseURL: 'https://user:pw@api.example.com/v1',
  secrets: [KEY],
  now: NOW,
};

/** An HTTP error exactly as the client builds it from a response. */
function httpError(
  status: number,
  error: { message: string; type?: string; code?: string | null },
  headers: Record<string, string> = {},
): APIError {
  return APIError.generate(
    status,
    { error: { param: null, type: 'invalid_request_error', code: null, ...error } },
    undefined,
    new Headers(headers),
  );
}

describe('classifyOpenAIError', () => {
  const table: [string, unknown, string, number | undefined][] = [
    [
      '429 insufficient_quota (code)',
      httpError(429, {
        message: 'You exceeded your current quota.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      }),
      'quota_exhausted',
      429,
    ],
    [
      '429 insufficient_quota (type only)',
      httpError(429, { message: 'quota', type: 'insufficient_quota' }),
      'quota_exhausted',
      429,
    ],
    [
      '429 rate limit',
      httpError(429, { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' }),
      'rate_limit',
      429,
    ],
    [
      '400 context_length_exceeded',
      httpError(400, { message: 'too long', code: 'context_length_exceeded' }),
      'context_overflow',
      400,
    ],
    [
      '400 "maximum context length" without code',
      httpError(400, { message: "This model's maximum context length is 8192 tokens." }),
      'context_overflow',
      400,
    ],
    [
      '401',
      httpError(401, { message: 'Incorrect API key provided: sk-pro**********3456.', code: 'invalid_api_key' }),
      'auth',
      401,
    ],
    ['403', httpError(403, { message: 'Project does not have access to model gpt-x' }), 'auth', 403],
    [
      '404 model_not_found',
      httpError(404, { message: 'The model `gpt-x` does not exist', code: 'model_not_found' }),
      'bad_request',
      404,
    ],
    ['400 plain', httpError(400, { message: "Invalid value for 'tool_choice'" }), 'bad_request', 400],
    ['409', httpError(409, { message: 'conflict' }), 'bad_request', 409],
    ['422', httpError(422, { message: 'unprocessable' }), 'bad_request', 422],
    ['500', httpError(500, { message: 'The server had an error', type: 'server_error' }), 'server', 500],
    ['503', httpError(503, { message: 'overloaded' }), 'server', 503],
    [
      'stream error event (no status)',
      new APIError(undefined, { message: 'boom', type: 'server_error' }, undefined, undefined),
      'server',
      undefined,
    ],
    [
      'stream error event with a context code',
      new APIError(undefined, { message: 'x', code: 'context_length_exceeded' }, undefined, undefined),
      'context_overflow',
      undefined,
    ],
    [
      'connection error',
      new APIConnectionError({ message: 'Connection error.', cause: new Error('ECONNREFUSED') }),
      'server',
      undefined,
    ],
    ['connection timeout', new APIConnectionTimeoutError(), 'timeout', undefined],
    ['user abort', new APIUserAbortError(), 'cancelled', undefined],
    [
      'a bare AbortError (body read after headers)',
      new DOMException('This operation was aborted', 'AbortError'),
      'cancelled',
      undefined,
    ],
    ['anything else', new SyntaxError('Unexpected token in JSON'), 'server', undefined],
  ];

  it.each(table)('%s → %s', (_name, error, kind, status) => {
    const classified = classifyOpenAIError(error, context);
    expect(classified).toBeInstanceOf(ModelError);
    expect(classified).toMatchObject({ kind, status, provider: 'openai', model: 'gpt-x' });
    expect(classified.cause).toBe(error);
    expect(classified.message).toContain('gpt-x');
    expect(classified.message).not.toContain(KEY);
  });

  it('reads retry-after-ms, retry-after seconds and retry-after HTTP dates', () => {
    const rateLimit = (headers: Record<string, string>) =>
      classifyOpenAIError(httpError(429, { message: 'slow down', code: 'rate_limit_exceeded' }, headers), context)
        .retryAfterMs;
    expect(rateLimit({ 'retry-after-ms': '1500', 'retry-after': '2' })).toBe(1500);
    expect(rateLimit({ 'retry-after': '2' })).toBe(2000);
    expect(rateLimit({ 'retry-after': new Date(NOW + 7_000).toUTCString() })).toBe(7000);
    expect(rateLimit({})).toBeUndefined();
  });

  it('says what to do, names the key setting and never quotes the key, even masked', () => {
    const auth = classifyOpenAIError(
      httpError(401, { message: `Incorrect API key provided: ${KEY}. Or sk-pro****3456.`, code: 'invalid_api_key' }),
      { ...context, apiKeyName: 'GEMINI_API_KEY' },
    );
    expect(auth.message).toMatch(
      /^openai rejected the credentials \(HTTP 401, model "gpt-x"\): .* Check GEMINI_API_KEY/,
    );
    expect(auth.message).not.toContain('VERYSECRET');
    expect(auth.message).not.toContain('3456');
    const rateLimit = classifyOpenAIError(
      httpError(429, { message: 'slow down', code: 'rate_limit_exceeded' }, { 'retry-after-ms': '1000' }),
      context,
    );
    expect(rateLimit.message).toContain('Retry after 1000 ms');
    expect(classifyOpenAIError(new APIConnectionTimeoutError(), context).message).toContain('within 300 ms');
    const unreachable = classifyOpenAIError(new APIConnectionError({ message: 'Connection error.' }), context).message;
    expect(unreachable).toContain('https://api.example.com');
    expect(unreachable).not.toContain('pw@');
  });

  it('treats any failure after the caller aborted as cancelled, and passes ModelErrors through', () => {
    const controller = new AbortController();
    controller.abort();
    expect(classifyOpenAIError(new TypeError('terminated'), { ...context, signal: controller.signal }).kind).toBe(
      'cancelled',
    );
    const already = new ModelError('rate_limit', 'x');
    expect(classifyOpenAIError(already, context)).toBe(already);
  });
});

describe('parseRetryAfterMs', () => {
  const headers = (values: Record<string, string>) => new Headers(values);

  it('rounds fractional values up and clamps past dates to zero', () => {
    expect(parseRetryAfterMs(headers({ 'retry-after-ms': '12.2' }), NOW)).toBe(13);
    expect(parseRetryAfterMs(headers({ 'retry-after': '0.5' }), NOW)).toBe(500);
    expect(parseRetryAfterMs(headers({ 'retry-after': 'Wed, 01 Jan 2025 11:59:00 GMT' }), NOW)).toBe(0);
    expect(parseRetryAfterMs(headers({ 'retry-after': 'Wed, 01 Jan 2025 12:00:03 GMT' }), NOW)).toBe(3000);
  });

  it('ignores unparseable values and falls back from a bad retry-after-ms', () => {
    expect(parseRetryAfterMs(headers({ 'retry-after': 'soon' }), NOW)).toBeUndefined();
    expect(parseRetryAfterMs(headers({ 'retry-after-ms': '-5', 'retry-after': '1' }), NOW)).toBe(1000);
    expect(parseRetryAfterMs(undefined)).toBeUndefined();
  });
});
