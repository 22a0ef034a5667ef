/** JSON.stringify's escapes of characters jsonb refuses: U+0000, and an unpaired surrogate (a paired one is written raw). */
const REFUSED_ESCAPE = /\\u(?:0000|d[89a-f][0-9a-f]{2})/i;
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what these look for
const UNSAFE_CHAR = /[\u0000\uD800-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what these look for
const REFUSED_CHARS = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function wellFormed(value: string): string {
  return UNSAFE_CHAR.test(value) ? value.replace(REFUSED_CHARS, '\uFFFD') : value;
}

/**
 * JSON text for a jsonb parameter. Postgres refuses U+0000 and unpaired surrogates in jsonb, which
 * are valid JSON otherwise, so a stray NUL in a tool result or half an emoji in a model's reply
 * would make every write of it fail; such characters become U+FFFD (the replacement character).
 * Values without them are written exactly as JSON.stringify writes them.
 */
export function jsonbText(value: unknown): string {
  const text = JSON.stringify(value);
  // A literal backslash before "u0000" also matches; the exact pass below then changes nothing.
  if (text === undefined || !REFUSED_ESCAPE.test(text)) return text;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? wellFormed(v) : v));
}
