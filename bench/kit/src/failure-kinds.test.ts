import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { failureKind, FailureTally } from './failure-kinds.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

describe('failureKind', () => {
  it("names the code of a fetch's cause: a server that resets the connection before answering", async () => {
    const server = http.createServer((req) => req.socket.destroy());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const error = await fetch(url).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failureKind(error)).toMatch(/^fetch failed \((UND_ERR_SOCKET|ECONNRESET)/);
  });

  it('names a refused connection', async () => {
    const server = http.createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    servers.pop();
    const error = await fetch(url).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failureKind(error)).toBe('fetch failed (ECONNREFUSED)');
  });

  it('walks nested causes, keeps names when there is no code, and cuts long messages', () => {
    const inner = Object.assign(new Error('connect ETIMEDOUT 127.0.0.1:80'), { code: 'ETIMEDOUT' });
    const middle = new Error('wrapped', { cause: inner });
    middle.name = 'ConnectTimeoutError';
    expect(failureKind(new TypeError('fetch failed', { cause: middle }))).toBe(
      'fetch failed (ConnectTimeoutError / ETIMEDOUT)',
    );
    expect(failureKind(new Error(`${'x'.repeat(200)}`))).toBe(`${'x'.repeat(60)}…`);
    expect(failureKind('a string')).toBe('a string');
  });

  it('names a message with a body by what precedes the body and its error code or status, not its ids', () => {
    expect(failureKind(new Error('HTTP 503: {"error":{"code":"OVERLOADED","message":"run_1 …"}}'))).toBe(
      'HTTP 503 (OVERLOADED)',
    );
    expect(
      failureKind(new Error('unexpected answer: {"id":74,"runId":"run_9","data":{"result":{"status":"failed"}}}')),
    ).toBe('unexpected answer (failed)');
    expect(failureKind(new Error('HTTP 502: <html>bad gateway</html>'))).toBe('HTTP 502');
  });
});

describe('FailureTally', () => {
  it('counts by kind, most frequent first', () => {
    const tally = new FailureTally();
    expect(tally.toString()).toBe('none');
    const reset = new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) });
    tally.add(new Error('HTTP 429 quota'));
    tally.add(reset);
    tally.add(reset);
    expect(tally.total).toBe(3);
    expect(tally.toString()).toBe('2× fetch failed (ECONNRESET); 1× HTTP 429 quota');
  });
});
