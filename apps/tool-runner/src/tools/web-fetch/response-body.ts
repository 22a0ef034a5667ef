/** Reading and decoding a fetched body within the tool's limits. */

/** How a response body is turned into text; undefined for types the tool does not return. */
export type BodyKind = 'html' | 'text';

/** A Content-Type header split into its media type (lowercase, no parameters) and charset. */
export interface ContentType {
  readonly mediaType: string;
  readonly charset: string | undefined;
}

/** Parses a Content-Type header; a missing header gives an empty media type. */
export function parseContentType(header: string | null): ContentType {
  const value = header ?? '';
  const mediaType = (value.split(';', 1)[0] ?? '').trim().toLowerCase();
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(value)?.[1];
  return { mediaType, charset };
}

/** `html` for HTML, `text` for text/*, JSON and XML (including `+json`/`+xml` types), else undefined. */
export function bodyKind(mediaType: string): BodyKind | undefined {
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') return 'html';
  if (mediaType.startsWith('text/')) return 'text';
  if (mediaType === 'application/json' || mediaType === 'application/xml') return 'text';
  return /^application\/[a-z0-9.!#$&^_-]+\+(?:json|xml)$/.test(mediaType) ? 'text' : undefined;
}

/** A body read up to a byte limit. */
export interface LimitedBody {
  readonly data: Uint8Array;
  /** True when the body had more bytes than the limit; the rest was never read. */
  readonly truncated: boolean;
}

/**
 * Reads at most `maxBytes` of a body stream, then cancels it, so a huge or endless response costs
 * no more memory than the limit and the connection is released. (Content-Length is not trusted:
 * it may be absent or wrong, and compressed bodies are counted after decompression.)
 */
export async function readLimited(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<LimitedBody> {
  if (!body) return { data: new Uint8Array(0), truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      const room = maxBytes - total;
      if (value.byteLength > room) {
        chunks.push(value.subarray(0, room));
        total += room;
        break;
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    // Stops the transfer when cut short (limit, abort, error); a no-op on a finished stream.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  return { data: Buffer.concat(chunks, total), truncated: !finished };
}

/**
 * Decodes with the response's charset, falling back to UTF-8 when it is absent or unknown. A cut
 * body may end inside a multi-byte character: streaming mode drops that partial character instead
 * of turning it into U+FFFD.
 */
export function decodeText(data: Uint8Array, charset: string | undefined, truncated: boolean): string {
  let decoder;
  try {
    decoder = new TextDecoder(charset ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8'); // an unknown label (RangeError): UTF-8 is the web's default
  }
  return decoder.decode(data, { stream: truncated });
}
