// Text the platform cannot store or send faithfully: bytes that are not UTF-8, and strings with
// an unpaired UTF-16 surrogate (which no UTF-8 encoder can write without replacing it by U+FFFD).
// Input with either, or with NUL (which Postgres text cannot hold), is refused; text from models
// and tools is repaired only with a diagnostic.

/** Byte offset of the first byte that does not belong to well-formed UTF-8, or -1 when all do. */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    // Lead byte ranges and the allowed range of the second byte (RFC 3629, table 3-7 of Unicode).
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f; // encoded surrogates are not UTF-8
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    if (i + length > bytes.length) return i;
    const second = bytes[i + 1]!;
    if (second < low || second > high) return i;
    for (let k = 2; k < length; k++) {
      const next = bytes[i + k]!;
      if (next < 0x80 || next > 0xbf) return i;
    }
    i += length;
  }
  return -1;
}

/**
 * How many bytes at the end of `bytes` start a UTF-8 sequence that the next bytes may complete
 * (0 to 3), for checking a stream chunk by chunk without mistaking a split character for a bad one.
 */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  for (let k = 1; k <= Math.min(3, bytes.length); k++) {
    const byte = bytes[bytes.length - k]!;
    if (byte >= 0x80 && byte <= 0xbf) continue; // a continuation byte: look further back
    if (byte < 0xc2 || byte > 0xf4) return 0; // ASCII or a byte no sequence starts with
    const length = byte <= 0xdf ? 2 : byte <= 0xef ? 3 : 4;
    return length > k ? k : 0;
  }
  return 0;
}

/** Index (in UTF-16 code units) of the first unpaired surrogate of `text`, or -1 when there is none. */
export function firstLoneSurrogate(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i += 1;
        continue;
      }
    }
    return i;
  }
  return -1;
}

/** Index of the first character of `text` that cannot be stored as text (NUL, or an unpaired surrogate), or -1. */
function firstUnstorableChar(text: string): { index: number; character: 'nul' | 'surrogate' } | undefined {
  const nul = text.indexOf('\u0000');
  const surrogate = firstLoneSurrogate(text);
  if (nul < 0 && surrogate < 0) return undefined;
  if (surrogate < 0 || (nul >= 0 && nul < surrogate)) return { index: nul, character: 'nul' };
  return { index: surrogate, character: 'surrogate' };
}

/** Where text that cannot be stored stands in a JSON value: the path of the string (or key), the index in it, and which character. */
export interface UnstorableText {
  /** JSON path of the string, e.g. `$.messages[0].content`; a key is named by its object's path plus the key. */
  path: string;
  index: number;
  /** NUL (U+0000: Postgres text and jsonb cannot hold it), or an unpaired UTF-16 surrogate (UTF-8 cannot). */
  character: 'nul' | 'surrogate';
}

/** The JSON path of `key` in the object at `path`: `$.a`, or `$["a b"]` when it is not a plain name. */
export function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * The first string or key of a parsed JSON value (or of parsed path parameters or a query) that
 * holds a character which cannot be stored as text, depth first; undefined when none does. The
 * walk keeps its own stack, so any nesting a JSON parser accepts is walked without overflowing.
 */
export function findUnstorableText(value: unknown, root = '$'): UnstorableText | undefined {
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: root }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === 'string') {
      const found = firstUnstorableChar(current);
      if (found) return { path, ...found };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) pending.push({ value: current[i], path: `${path}[${i}]` });
    } else if (current && typeof current === 'object') {
      const entries = Object.entries(current);
      for (const [key] of entries) {
        const found = firstUnstorableChar(key);
        if (found) return { path: `${childPath(path, key)} (key)`, ...found };
      }
      for (let i = entries.length - 1; i >= 0; i--)
        pending.push({ value: entries[i]![1], path: childPath(path, entries[i]![0]) });
    }
  }
  return undefined;
}

/**
 * `text` with every unpaired surrogate replaced by U+FFFD, and how many were replaced, so a caller
 * that has to accept such text (a model's or a tool's output) can say so in a diagnostic.
 */
export function repairLoneSurrogates(text: string): { text: string; replaced: number } {
  if (firstLoneSurrogate(text) < 0) return { text, replaced: 0 };
  let replaced = 0;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i]! + text[i + 1]!;
        i += 1;
        continue;
      }
    }
    if (unit >= 0xd800 && unit <= 0xdfff) {
      out += '\ufffd';
      replaced += 1;
    } else out += text[i]!;
  }
  return { text: out, replaced };
}
