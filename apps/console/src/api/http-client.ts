import { ApiError, apiErrorOf } from './api-error.js';

/** Who calls: the bearer token, and the tenant an operator reads instead of the token's own. */
export interface Caller {
  token: string;
  /** Sent as `Platform-Tenant` on GET requests only (the api refuses it elsewhere). */
  viewTenant?: string | undefined;
}

export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  accept?: string;
  headers?: Record<string, string>;
}

/** The query string of `query`, leaving out undefined and empty values; arrays repeat the name. */
export function queryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === '') continue;
    if (typeof value === 'object') for (const item of value) params.append(name, item);
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The headers of a call: the token, JSON, and `Platform-Tenant` on reads when an operator views another tenant. */
export function headersFor(caller: Caller, method: string, options: RequestOptions = {}): Record<string, string> {
  return {
    authorization: `Bearer ${caller.token}`,
    ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(options.accept ? { accept: options.accept } : {}),
    ...(caller.viewTenant && method === 'GET' ? { 'platform-tenant': caller.viewTenant } : {}),
    ...options.headers,
  };
}

/**
 * Calls the api (same origin) and answers the raw response, or throws an {@link ApiError}: for
 * the event streams (SSE), which the typed client (endpoints.ts) does not read.
 */
export async function send(caller: Caller, method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`${path}${queryString(options.query)}`, {
      method,
      headers: headersFor(caller, method, options),
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'NETWORK', (error as Error).message);
  }
  if (!response.ok) throw await apiErrorOf(response);
  return response;
}
