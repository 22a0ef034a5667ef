import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonClient } from './json-client.js';

const servers: http.Server[] = [];
const clients: JsonClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
});

/** A JSON echo server that counts the connections it accepted; `keepAliveMs` is what it announces and enforces. */
async function echoServer(keepAliveMs: number, answerAfterMs = 0): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => res.setHeader('content-type', 'application/json').end('{"ok":true}'), answerAfterMs),
    );
  });
  server.keepAliveTimeout = keepAliveMs;
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, connections: () => connections };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('JsonClient', () => {
  it('reuses a connection while it is fresh', async () => {
    const server = await echoServer(10_000);
    const client = new JsonClient();
    clients.push(client);
    for (let i = 0; i < 3; i++)
      expect(await client.post(server.url, {}, { i })).toEqual({ status: 200, body: { ok: true } });
    expect(server.connections()).toBe(1);
  });

  it("drops an idle connection a second before the server's announced keep-alive timeout, so it never sends on one being closed", async () => {
    // The server keeps idle connections 2 s (and says so in Keep-Alive: timeout=2); at 1.5 s the
    // client must already have closed its own and open a new one.
    const server = await echoServer(2_000);
    const client = new JsonClient();
    clients.push(client);
    await client.post(server.url, {}, { first: true });
    await sleep(1_500);
    expect(await client.post(server.url, {}, { second: true })).toEqual({ status: 200, body: { ok: true } });
    expect(server.connections()).toBe(2);
  });

  it('never cuts a request in flight, however long past the idle timeout it takes', async () => {
    const server = await echoServer(60_000, 700);
    const client = new JsonClient({ idleSocketTimeoutMs: 200 });
    clients.push(client);
    expect(await client.post(server.url, {}, {})).toEqual({ status: 200, body: { ok: true } });
  });

  it('closes idle connections after its own timeout when the server announces none longer', async () => {
    const server = await echoServer(60_000);
    const client = new JsonClient({ idleSocketTimeoutMs: 300 });
    clients.push(client);
    await client.post(server.url, {}, {});
    await sleep(600);
    await client.post(server.url, {}, {});
    expect(server.connections()).toBe(2);
  });
});
