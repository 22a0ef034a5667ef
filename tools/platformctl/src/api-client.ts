/** What went wrong talking to the api, with the api's stable error code when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiClientOptions {
  /** Base URL of the api, e.g. `https://agents.example.com`. */
  baseUrl: string;
  /** The bearer credential: a JWT (an operator's, or a tenant admin's) or an API key (`plk_…`). */
  token: string;
  /** Read this tenant's data (the `Platform-Tenant` header; operators only, on reads only). */
  tenant?: string | undefined;
  timeoutMs?: number;
}

type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface ApiRequest {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
}

/** An answer of the api: its JSON body and its headers (e.g. an agent's `etag`). */
export interface ApiAnswer<T> {
  body: T;
  headers: Headers;
}

/** Calls to the platform's HTTP API (docs/api.md). */
export class ApiClient {
  constructor(private readonly options: ApiClientOptions) {}

  async get<T>(path: string, query: Query = {}): Promise<T> {
    return (await this.request<T>('GET', path, { query })).body;
  }

  /** A write for the token's own tenant (the Platform-Tenant header is for reads only, and not sent). */
  async send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return (await this.request<T>(method, path, body === undefined ? {} : { body })).body;
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('POST', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.send<T>('DELETE', path);
  }

  async request<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    request: ApiRequest = {},
  ): Promise<ApiAnswer<T>> {
    const url = new URL(path, this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(item));
    }
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.options.token}`,
          accept: 'application/json',
          // The api takes Platform-Tenant on reads only: an operator writes as its own tenant.
          ...(this.options.tenant && method === 'GET' ? { 'platform-tenant': this.options.tenant } : {}),
          ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...request.headers,
        },
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new ApiError(0, 'UNREACHABLE', `cannot reach ${url.origin}: ${(err as Error).message}`);
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const error = (body as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error;
      throw new ApiError(
        response.status,
        error?.code ?? `HTTP_${response.status}`,
        error?.message ?? (text.slice(0, 200) || response.statusText),
        error?.details,
      );
    }
    return { body: body as T, headers: response.headers };
  }
}
