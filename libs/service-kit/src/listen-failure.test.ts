// A server that cannot bind says which address and which setting moves it (grpc-js does not).
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcServer } from './grpc-server.js';
import { PlaintextTransport } from './grpc-transport.js';
import { ListenError, listenFailure } from './listen-failure.js';
import { createLogger } from './logger.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let squatter: Server;
let taken: number;

beforeAll(async () => {
  squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  taken = (squatter.address() as { port: number }).port;
});
afterAll(() => squatter.close());

describe('listen failures', () => {
  it('a gRPC server on a taken port names the address and GRPC_PORT (or the setting it was given)', async () => {
    const err = await new GrpcServer({ host: '127.0.0.1', port: taken, logger, transport: new PlaintextTransport() })
      .start()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ListenError);
    expect(err).toMatchObject({ code: 'ADDRESS_IN_USE', address: `127.0.0.1:${taken}`, setting: 'GRPC_PORT' });
    expect((err as Error).message).toBe(
      `cannot listen on 127.0.0.1:${taken}: the address is already in use by another process (EADDRINUSE); set GRPC_PORT to another port to move it`,
    );
    const named = await new GrpcServer({
      host: '127.0.0.1',
      port: taken,
      logger,
      transport: new PlaintextTransport(),
      portSetting: 'MEMORY_GRPC_PORT',
    })
      .start()
      .catch((e: unknown) => e);
    expect((named as Error).message).toContain('set MEMORY_GRPC_PORT to another port');
  });

  it('keeps the OS reason of an HTTP listen error, and says what it could not find out', async () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    expect((await listenFailure('::1', 8080, 'HTTP_PORT', inUse)).message).toBe(
      'cannot listen on [::1]:8080: the address is already in use by another process (EADDRINUSE); set HTTP_PORT to another port to move it',
    );
    const unknown = await listenFailure('127.0.0.1', 0, 'HTTP_PORT', new Error('something odd'));
    expect(unknown).toMatchObject({
      code: 'LISTEN_FAILED',
      message: expect.stringContaining('could not be bound (something odd)'),
    });
  });
});
