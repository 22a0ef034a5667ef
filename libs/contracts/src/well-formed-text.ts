// Text the platform cannot store or send faithfully: bytes that are not UTF-8, and strings with
// an unpaired UTF-16 surrogate (which no UTF-8 encoder can write without replacing it by U+FFFD).
// Input with either is refused; text from models and tools is repaired only with a diagnostic.

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

/** Where an unpaired surrogate stands in a JSON value: the path of the string (or key) and the index in it. */
export interface IllFormedText {
  /** JSON path of the string, e.g. `$.messages[0].content`; a key is named by its object's path plus the key. */
  path: string;
  index: number;
}

/** The first string or key of a parsed JSON value that holds an unpaired surrogate, depth first; undefined when none does. */
export function findIllFormedText(value: unknown, path = '$'): IllFormedText | undefined {
  if (typeof value === 'string') {
    const index = firstLoneSurrogate(value);
    return index < 0 ? undefined : { path, index };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findIllFormedText(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const childPath = /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
      const keyIndex = firstLoneSurrogate(key);
      if (keyIndex >= 0) return { path: `${childPath} (key)`, index: keyIndex };
      const found = findIllFormedText(item, childPath);
      if (found) return found;
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
