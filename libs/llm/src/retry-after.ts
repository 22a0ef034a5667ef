/** The subset of the Fetch `Headers` API the parser reads (the `openai` client exposes `Headers`). */
export interface HeaderLookup {
  get(name: string): string | null;
}

const SECONDS = /^\s*\d+(\.\d+)?\s*$/;

/**
 * How long the provider asked us to wait, in whole milliseconds, from the response headers.
 *
 * `retry-after-ms` (OpenAI's non-standard, more precise header) wins over `retry-after`, which is
 * either delta-seconds or an HTTP date (RFC 9110 §10.2.3). A date in the past means "now" (0).
 * Returns `undefined` when neither header is present or parseable, so callers can fall back to
 * their own backoff instead of trusting a made-up value.
 */
export function parseRetryAfterMs(
  headers: HeaderLookup | undefined | null,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const retryAfter = headers.get('retry-after');
  if (retryAfter === null || retryAfter.trim() === '') return undefined;
  if (SECONDS.test(retryAfter)) return Math.ceil(Number(retryAfter) * 1000);
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
