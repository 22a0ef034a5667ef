/** What went wrong talking to the api, with the api's stable error code when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiClientOptions {
  /** Base URL of the api, e.g. `https://agents.example.com`. */
  baseUrl: string;
  /** An operator's bearer token (a JWT with the operator role in its `roles` claim). */
  token: string;
  /** Read this tenant's data (the `Platform-Tenant` header; operators only, read-only). */
  tenant?: string | undefined;
  timeoutMs?: number;
}

/** Read-only calls to the platform's HTTP API (docs/api.md). */
export class ApiClient {
  constructor(private readonly options: ApiClientOptions) {}

  async get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const url = new URL(path, this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    let response: Response;
    try {
      response = await fetch(url, {
        headers: {
          authorization: `Bearer ${this.options.token}`,
          accept: 'application/json',
          ...(this.options.tenant ? { 'platform-tenant': this.options.tenant } : {}),
        },
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
      const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ApiError(
        response.status,
        error?.code ?? `HTTP_${response.status}`,
        error?.message ?? (text.slice(0, 200) || response.statusText),
      );
    }
    return body as T;
  }
}
