import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { freePort } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPooledFetch } from './pooled-fetch.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let base: string;
const seen: Seen[] = [];
/** Lets the streaming route send its second chunk. */
let releaseSecondChunk: () => void = () => undefined;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const route = new URL(req.url ?? '/', 'http://x').pathname;
      if (route === '/json') {
        res.setHeader('set-cookie', ['a=1', 'b=2']);
        res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
        res.end(JSON.stringify({ ok: true }));
      } else if (route === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        releaseSecondChunk = () => res.end('data: two\n\n');
      } else if (route === '/gzip') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        res.end(gzipSync('decompressed text'));
      } else if (route === '/empty') {
        res.writeHead(204);
        res.end();
      } else if (route === '/silent') {
        // never answers: the client must give up on its own
      } else if (route === '/hang') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no such route');
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const pooledFetch = createPooledFetch();

describe('createPooledFetch', () => {
  it('sends the method, headers and body, and returns status, headers and body like fetch', async () => {
    const response = await pooledFetch(`${base}/json?x=1`, {
      method: 'post',
      headers: new Headers({ 'Content-Type': 'application/json', Authorization: 'Bearer k' }),
      body: '{"q":1}',
    });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-request-id')).toBe('req-1');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ ok: true });
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', url: '/json?x=1', body: '{"q":1}' });
    expect(request.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer k' });
  });

  it('accepts headers as a plain object or as pairs', async () => {
    await pooledFetch(`${base}/json`, { headers: { 'X-One': '1' } });
    expect(seen.at(-1)!.headers['x-one']).toBe('1');
    await pooledFetch(`${base}/json`, { headers: [['X-Two', '2']] });
    expect(seen.at(-1)!.headers['x-two']).toBe('2');
  });

  it('reports an error status without throwing, with the body readable', async () => {
    const response = await pooledFetch(`${base}/missing`);
    expect(response.status).toBe(404);
    expect(response.ok).toBe(false);
    expect(await response.text()).toBe('no such route');
  });

  it('streams the body: the first chunk is readable before the server sends the rest', async () => {
    const response = await pooledFetch(`${base}/stream`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('data: one\n\n');
    releaseSecondChunk();
    let rest = '';
    for (let part = await reader.read(); !part.done; part = await reader.read()) rest += decoder.decode(part.value);
    expect(rest).toBe('data: two\n\n');
  });

  it('decodes a gzip-compressed reply as fetch does', async () => {
    const response = await pooledFetch(`${base}/gzip`);
    expect(await response.text()).toBe('decompressed text');
  });

  it('gives a 204 a null body', async () => {
    const response = await pooledFetch(`${base}/empty`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("rejects with the signal's reason when aborted before the reply, or at once when already aborted", async () => {
    const reason = new Error('caller gave up');
    const early = new AbortController();
    early.abort(reason);
    await expect(pooledFetch(`${base}/json`, { signal: early.signal })).rejects.toBe(reason);

    const waiting = new AbortController();
    const pending = pooledFetch(`${base}/silent`, { signal: waiting.signal });
    setTimeout(() => waiting.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });

  it('fails a body read when the signal aborts while the body is still arriving', async () => {
    const controller = new AbortController();
    const response = await pooledFetch(`${base}/hang`, { signal: controller.signal });
    const reading = response.text();
    controller.abort(new Error('stop reading'));
    await expect(reading).rejects.toThrow();
  });

  it("rejects an unreachable server with TypeError('fetch failed') carrying the socket error, like fetch", async () => {
    const port = await freePort();
    const failure = await pooledFetch(`http://127.0.0.1:${port}/x`).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('hands a form body to the built-in fetch', async () => {
    const form = new FormData();
    form.set('field', 'value');
    const response = await pooledFetch(`${base}/json`, { method: 'POST', body: form });
    expect(response.status).toBe(201);
    const request = seen.at(-1)!;
    expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(request.body).toContain('value');
  });
});
