import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';

let echo: net.Server;
let proxy: FaultProxy;

beforeAll(async () => {
  echo = net.createServer((socket) => {
    socket.on('error', () => undefined); // the proxy's reset reaches the server side too
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()));
  proxy = await startFaultProxy({ target: { port: (echo.address() as net.AddressInfo).port } });
});
afterAll(async () => {
  await proxy.stop();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

function connect(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: proxy.port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends `text` and resolves with what comes back once `text.length` bytes arrived. */
function roundTrip(socket: net.Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const onData = (chunk: Buffer): void => {
      received += chunk.toString('utf8');
      if (received.length >= text.length) {
        socket.off('data', onData);
        resolve(received);
      }
    };
    socket.on('data', onData);
    socket.write(text);
  });
}

describe('the fault proxy', () => {
  it('forwards both ways, in order', async () => {
    const socket = await connect();
    expect(await roundTrip(socket, 'hello')).toBe('hello');
    socket.destroy();
  });

  it('adds latency each way without reordering chunks', async () => {
    const socket = await connect();
    proxy.setLatency(100);
    const started = performance.now();
    const echoed = roundTrip(socket, 'abcdef');
    expect(await echoed).toBe('abcdef');
    // Two hops of at least 100 ms each: a lower bound, which load cannot make fail.
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
    proxy.setLatency(0);
    expect(await roundTrip(socket, 'after')).toBe('after');
    socket.destroy();
  });

  it('resets open connections and accepts new ones', async () => {
    const socket = await connect();
    await roundTrip(socket, 'x');
    const closed = new Promise<string | undefined>((resolve) =>
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code)),
    );
    expect(proxy.resetConnections()).toBeGreaterThanOrEqual(1);
    expect(await closed).toBe('ECONNRESET');
    const again = await connect();
    expect(await roundTrip(again, 'back')).toBe('back');
    again.destroy();
  });

  it('refuses a negative latency', () => {
    expect(() => proxy.setLatency(-1)).toThrow(/non-negative/);
  });
});
