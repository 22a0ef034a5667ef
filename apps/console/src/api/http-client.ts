import { ApiError, apiErrorOf } from './api-error.js';

/** Who calls: the bearer token, and the tenant an operator reads instead of the token's own. */
export interface Caller {
  token: string;
  /** Sent as `Platform-Tenant` on GET requests only (the api refuses it elsewhere). */
  viewTenant?: string | undefined;
}

/** The caller's headers on a request: the token, and `Platform-Tenant` on reads when an operator views another tenant. */
export function callerHeaders(caller: Caller, method: string): Record<string, string> {
  return {
    authorization: `Bearer ${caller.token}`,
    ...(caller.viewTenant && method.toUpperCase() === 'GET' ? { 'platform-tenant': caller.viewTenant } : {}),
  };
}

export interface StreamRequest {
  body?: unknown;
  signal: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * Opens an event stream (SSE) of the api (same origin), which the typed client (endpoints.ts)
 * does not read: answers the response to read its body, or throws an {@link ApiError}.
 */
export async function openEventStream(
  caller: Caller,
  method: 'GET' | 'POST',
  path: string,
  request: StreamRequest,
): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        ...callerHeaders(caller, method),
        accept: 'text/event-stream',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal: request.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'NETWORK', (error as Error).message);
  }
  if (!response.ok) throw await apiErrorOf(response);
  return response;
}
