import { A2AError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { toHttpError } from '../http-errors.js';

/**
 * An error of a task call as A2A tells it (JSON-RPC `error`): the SDK's own errors pass as they
 * are; a missing run (or another tenant's, answered the same) is TaskNotFound; input the platform
 * refused is RequestMalformed (-32602) and anything else an internal error (-32603), each with the
 * platform's code first in the message and in the ErrorInfo metadata (`code`, `status`).
 */
export function a2aErrorOf(error: unknown): A2AError {
  if (error instanceof A2AError) return error;
  const mapped = toHttpError(error);
  const { code, message } = mapped.body.error;
  if (mapped.status === 404 && code === 'RUN_NOT_FOUND') return new TaskNotFoundError('no such task');
  const metadata = {
    code,
    status: String(mapped.status),
    ...(mapped.retryAfterSeconds !== undefined ? { retryAfterSeconds: String(mapped.retryAfterSeconds) } : {}),
  };
  const text = `${code}: ${message}`;
  if (mapped.status >= 400 && mapped.status < 500 && mapped.status !== 429)
    return new RequestMalformedError({ message: text, metadata, cause: error });
  return new A2AError({ message: text, metadata, cause: error });
}
