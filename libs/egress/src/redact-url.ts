const REDACTED = '[redacted]';

/**
 * A URL as it may be logged or stored: a user name and password become `[redacted]`, every query
 * value becomes `[redacted]` (tokens and signatures travel there), the fragment is dropped.
 * Text that is not a URL is not echoed either.
 */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '[not a URL]';
  }
  const userinfo = parsed.username || parsed.password ? `${REDACTED}@` : '';
  const query = [...parsed.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=${REDACTED}`).join('&');
  return `${parsed.protocol}//${userinfo}${parsed.host}${parsed.pathname}${query ? `?${query}` : ''}`;
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

/** `text` (an error message, say) with every URL in it redacted as `redactUrl` does. */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (match) => redactUrl(match));
}
