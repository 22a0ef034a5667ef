import { once } from 'node:events';
import net from 'node:net';
import { binaries, locateBinary, ManagedProcess, startRedisServer } from '@platform/testing';
import { allocateSuiteRedis } from '@platform/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { createRedis } from './redis.js';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('createRedis', () => {
  it('talks to its logical database and names its connection', async () => {
    const redis = createRedis({ url: await allocateSuiteRedis(), name: 'svc-test', logger });
    await redis.set('key', 'value', 'PX', 10_000);
    expect(await redis.get('key')).toBe('value');
    expect(await redis.client('GETNAME')).toBe('svc-test');
    redis.disconnect();
  });

  it('fails commands fast while Redis is down instead of hanging, and recovers when it is back', async () => {
    const server = await startRedisServer();
    const redis = createRedis({ url: server.url, name: 'svc-test', logger });
    await redis.ping();
    const port = server.port;
    await server.stop();
    await expect(redis.get('k')).rejects.toThrow();
    // A new server on the same port: the client reconnects by itself.
    const again = ManagedProcess.start('redis-again', await locateBinary(binaries.redisServer), [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
    ]);
    let pong: string | undefined;
    for (let i = 0; i < 100 && pong !== 'PONG'; i++) {
      pong = await redis.ping().catch(() => undefined);
      if (pong !== 'PONG') await new Promise((r) => setTimeout(r, 50));
    }
    expect(pong).toBe('PONG');
    redis.disconnect();
    await again.stop();
  });

  it('fails a command that gets no reply (a hung Redis) after the command timeout', async () => {
    // Accepts connections and never answers, like a Redis stuck in a long operation.
    const sockets: net.Socket[] = [];
    const hung = net.createServer((socket) => void sockets.push(socket)).listen(0, '127.0.0.1');
    await once(hung, 'listening');
    const redis = createRedis({
      url: `redis://127.0.0.1:${(hung.address() as net.AddressInfo).port}`,
      name: 'svc-test',
      logger,
      commandTimeoutMs: 100,
    });
    await expect(redis.get('k')).rejects.toThrow('Command timed out');
    redis.disconnect();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hung.close(resolve));
  });
});
