import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, type Dispatcher } from 'undici';
import { utf8Check } from './utf8-check.js';

/** The subset of `fetch` the `openai` client calls: a URL string and an init object. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Statuses whose responses carry no body (the `Response` constructor refuses one). */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

let shared: Agent | undefined;

/** One connection pool per origin for the whole process (model clients of every profile share it). */
function sharedDispatcher(): Agent {
  shared ??= new Agent({ keepAliveTimeout: 30_000 });
  return shared;
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (headers instanceof Headers) headers.forEach((value, name) => (out[name] = value));
  else if (Array.isArray(headers)) for (const [name, value] of headers) out[name.toLowerCase()] = value;
  else for (const [name, value] of Object.entries(headers as Record<string, string>)) out[name.toLowerCase()] = value;
  return out;
}

function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.append(name, value);
  }
  return headers;
}

/** A body the dispatcher sends as is; anything else (forms, streams, blobs) goes through `fetch`. */
function isPlainBody(body: RequestInit['body']): body is string | Uint8Array | null | undefined {
  return body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
}

/** Decodes a compressed body the way `fetch` does (a server may compress unasked). */
function decoded(body: Readable, encoding: string | null): Readable {
  const decoder = encoding ? DECODERS[encoding.trim().toLowerCase()] : undefined;
  if (!decoder) return body;
  const stream = decoder();
  body.on('error', (err) => stream.destroy(err));
  return body.pipe(stream);
}

/**
 * A `fetch` over undici's dispatcher API, for the `openai` client. Node's built-in `fetch` spends
 * most of a model call's client CPU on WHATWG machinery (request cloning, stream tees, abort
 * signal wrappers); this one sends the request directly on a keep-alive pool and wraps the reply
 * in a standard `Response`, so the client behaves exactly as with `fetch`: the body streams (an
 * SSE answer arrives chunk by chunk), an abort rejects with the signal's reason, a network failure
 * rejects with `TypeError('fetch failed')` whose `cause` is the socket error, and a compressed
 * reply is decoded. Requests it cannot send as is (a `Request` object, a form or stream body)
 * are passed to the built-in `fetch`. It does not follow redirects (model APIs do not send them).
 */
export interface PooledFetchOptions {
  /**
   * Called when a response body holds bytes that are not UTF-8, for requests that carry the
   * {@link UTF8_WATCH_HEADER} header (its value names the request; the header is not sent).
   */
  onInvalidUtf8?: (watchId: string, byteOffset: number) => void;
}

/** Request header that asks {@link createPooledFetch} to check the response body's UTF-8 (never sent on). */
export const UTF8_WATCH_HEADER = 'x-platform-utf8-watch';

export function createPooledFetch(
  dispatcher: Dispatcher = sharedDispatcher(),
  options: PooledFetchOptions = {},
): FetchFunction {
  return async (input, init = {}) => {
    if (input instanceof Request || !isPlainBody(init.body)) return fetch(input, init);
    const requestHeaders = headerRecord(init.headers);
    const watchId = requestHeaders[UTF8_WATCH_HEADER];
    delete requestHeaders[UTF8_WATCH_HEADER];
    const url = typeof input === 'string' ? new URL(input) : input;
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    let reply: Dispatcher.ResponseData;
    try {
      reply = await dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: (init.method ?? 'GET').toUpperCase(),
        headers: requestHeaders,
        body: init.body ?? null,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw new TypeError('fetch failed', { cause: err });
    }
    const headers = responseHeaders(reply.headers);
    if (NULL_BODY_STATUSES.has(reply.statusCode) || init.method?.toUpperCase() === 'HEAD') {
      reply.body.resume();
      return new Response(null, { status: reply.statusCode, headers });
    }
    let body = decoded(reply.body, headers.get('content-encoding'));
    const onInvalid = options.onInvalidUtf8;
    if (watchId !== undefined && onInvalid) {
      const check = utf8Check((offset) => onInvalid(watchId, offset));
      body.on('error', (err) => check.destroy(err));
      body = body.pipe(check);
    }
    return new Response(body, { status: reply.statusCode, headers });
  };
}
