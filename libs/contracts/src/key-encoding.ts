/**
 * The one encoding of tenant-chosen parts inside Redis keys, NATS subjects, JetStream message ids,
 * Postgres advisory-lock keys and in-memory map keys.
 *
 * Each part becomes one token: letters, digits, "_", "-" and ":" stand for themselves; every
 * other UTF-16 code unit is written `%XX` (below U+0100) or `%uXXXX` (uppercase hex), and the
 * empty part is written `%`. Tokens are joined with ".", which a token never contains. So:
 *
 * - it is injective: distinct tuples of parts give distinct keys (a token decodes back to its
 *   part, and the "." between tokens is never part of one), whatever the parts contain;
 * - every token is a valid NATS subject token: never empty, no ".", "*", ">", whitespace or
 *   control character, printable ASCII only; "{" and "}" are escaped too, so a part cannot move
 *   a Redis Cluster hash tag;
 * - for the ids the api accepts (`ID_PATTERN`: letters, digits, ".", "_", ":", "-") the token is
 *   the id with "." written "%2E", which is what subjects of durable streams have always used:
 *   subjects of stored data do not change.
 */

const PLAIN = /^[A-Za-z0-9_:-]$/;
const EMPTY_TOKEN = '%';

const hex = (n: number, width: number): string => n.toString(16).toUpperCase().padStart(width, '0');

/** One part as one token (see the module comment for the rules). */
export function keyToken(part: string): string {
  if (part === '') return EMPTY_TOKEN;
  let token = '';
  for (let i = 0; i < part.length; i++) {
    const char = part[i]!;
    if (PLAIN.test(char)) token += char;
    else {
      const unit = part.charCodeAt(i);
      token += unit < 0x100 ? `%${hex(unit, 2)}` : `%u${hex(unit, 4)}`;
    }
  }
  return token;
}

/** The key of a tuple of parts: one token per part, joined with ".". */
export function compositeKey(...parts: readonly string[]): string {
  if (parts.length === 0) throw new Error('a composite key needs at least one part');
  return parts.map(keyToken).join('.');
}

/** Reverses `keyToken`; undefined for text `keyToken` never produces. Used by tests and tools. */
export function decodeKeyToken(token: string): string | undefined {
  if (token === EMPTY_TOKEN) return '';
  let part = '';
  for (let i = 0; i < token.length;) {
    const char = token[i]!;
    if (PLAIN.test(char)) {
      part += char;
      i += 1;
      continue;
    }
    if (char !== '%') return undefined;
    const wide = token[i + 1] === 'u';
    const digits = wide ? token.slice(i + 2, i + 6) : token.slice(i + 1, i + 3);
    if (!/^[0-9A-F]+$/.test(digits) || digits.length !== (wide ? 4 : 2)) return undefined;
    const unit = parseInt(digits, 16);
    // Only the shortest spelling is produced: a plain character or a small unit written wide is not ours.
    if ((wide && unit < 0x100) || PLAIN.test(String.fromCharCode(unit))) return undefined;
    part += String.fromCharCode(unit);
    i += wide ? 6 : 3;
  }
  return part === '' ? undefined : part;
}
