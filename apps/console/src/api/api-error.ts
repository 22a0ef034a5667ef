/** An error answer of the platform's API (`{"error": {"code", "message", "details"}}`), or a network failure (status 0). */
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

/** Reads an error body as the api writes it; anything else keeps the HTTP status as its code. */
export async function apiErrorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    if (body.error && typeof body.error.code === 'string') {
      return new ApiError(
        response.status,
        body.error.code,
        typeof body.error.message === 'string' ? body.error.message : body.error.code,
        body.error.details,
      );
    }
  } catch {
    // not JSON: fall through
  }
  return new ApiError(response.status, `HTTP_${response.status}`, text.slice(0, 200) || response.statusText);
}

/** What the user can do about an error, in words (empty states and error banners show it). */
export function remedyFor(error: ApiError): string {
  if (error.status === 0)
    return 'The platform could not be reached. Check that it runs (npm run platform) and try again.';
  if (error.status === 401) return 'Your token was refused or has expired. Sign in again with a fresh token.';
  if (error.status === 403)
    return 'Your token may not do this. Operators look at other tenants read-only; clear the tenant picker to act as yourself.';
  if (error.status === 404)
    return "It does not exist in this tenant (another tenant's items are answered the same way).";
  if (error.status === 429) return 'The platform asks to slow down. Wait a moment and try again.';
  if (error.status === 503)
    return 'A service behind the api is unavailable. Try again shortly; operators can check /readyz.';
  if (error.status >= 500) return 'The platform failed. Try again; the api logs say more.';
  return 'Check the input and try again.';
}
