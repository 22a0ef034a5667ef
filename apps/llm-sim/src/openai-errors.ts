/** An error answer in OpenAI's wire shape, with the status and any extra headers. */
export interface SimError {
  status: number;
  headers?: Record<string, string>;
  body: { error: { message: string; type: string; param: string | null; code: string | null } };
}

/** Builds a {@link SimError}; every error the simulator returns goes through here. */
export function openAiError(
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
  headers?: Record<string, string>,
): SimError {
  return { status, body: { error: { message, type, param, code } }, ...(headers ? { headers } : {}) };
}

/** 400 `invalid_request_error`. */
export function invalidRequest(message: string, param: string | null = null, code: string | null = null): SimError {
  return openAiError(400, message, 'invalid_request_error', code, param);
}

/** 401 `invalid_api_key`, echoing only a masked hint of the key as OpenAI does. */
export function invalidApiKey(key: string | undefined): SimError {
  const message =
    key === undefined
      ? "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
      : `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`;
  return openAiError(401, message, 'invalid_request_error', 'invalid_api_key');
}

function maskKey(key: string): string {
  if (key.length <= 8) return '*'.repeat(key.length);
  return `${key.slice(0, 3)}${'*'.repeat(Math.min(key.length - 7, 20))}${key.slice(-4)}`;
}

/** 404 `model_not_found`. */
export function modelNotFound(model: string): SimError {
  return openAiError(
    404,
    `The model \`${model}\` does not exist or you do not have access to it.`,
    'invalid_request_error',
    'model_not_found',
    'model',
  );
}

/** 400 `context_length_exceeded` with OpenAI's wording. */
export function contextLengthExceeded(maxTokens: number, promptTokens: number): SimError {
  return invalidRequest(
    `This model's maximum context length is ${maxTokens} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
    'messages',
    'context_length_exceeded',
  );
}

/** 429 `rate_limit_exceeded` with both `retry-after` (seconds) and `retry-after-ms`. */
export function rateLimited(model: string, retryAfterSeconds: number, message?: string): SimError {
  return openAiError(
    429,
    message ??
      `Rate limit reached for ${model} in organization org-llm-sim on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in ${retryAfterSeconds}s.`,
    'requests',
    'rate_limit_exceeded',
    null,
    {
      'retry-after': String(Math.ceil(retryAfterSeconds)),
      'retry-after-ms': String(Math.round(retryAfterSeconds * 1000)),
    },
  );
}

/** 500 `server_error`. */
export function serverError(message?: string): SimError {
  return openAiError(
    500,
    message ?? 'The server had an error while processing your request. Sorry about that!',
    'server_error',
  );
}
