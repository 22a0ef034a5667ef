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
  /** The bearer credential: a JWT (an operator's, or a tenant admin's) or an API key (`plk_…`). */
  token: string;
  /** Read this tenant's data (the `Platform-Tenant` header; operators only, read-only). */
  tenant?: string | undefined;
  timeoutMs?: number;
}

/** Calls to the platform's HTTP API (docs/api.md): reads, and the key commands' writes. */
export class ApiClient {
  constructor(private readonly options: ApiClientOptions) {}

  get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    return this.send<T>('GET', path, query);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('POST', path, {}, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.send<T>('DELETE', path, {});
  }

  private async send<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    query: Record<string, string | number | undefined>,
    body?: unknown,
  ): Promise<T> {
    const url = new URL(path, this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.options.token}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(this.options.tenant ? { 'platform-tenant': this.options.tenant } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new ApiError(0, 'UNREACHABLE', `cannot reach ${url.origin}: ${(err as Error).message}`);
    }
    const text = await response.text();
    let answer: unknown;
    try {
      answer = text ? JSON.parse(text) : undefined;
    } catch {
      answer = undefined;
    }
    if (!response.ok) {
      const error = (answer as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ApiError(
        response.status,
        error?.code ?? `HTTP_${response.status}`,
        error?.message ?? (text.slice(0, 200) || response.statusText),
      );
    }
    return answer as T;
  }
}
