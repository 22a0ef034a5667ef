import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { binaries, locateBinary } from './binaries.js';
import { ManagedProcess } from './managed-process.js';
import { freePort, waitForPort } from './ports.js';

const START_TIMEOUT_MS = 15_000;
const START_ATTEMPTS = 3;
/** Enough logical databases for every suite of a run to get its own (see `allocateRedisDatabase`). */
export const REDIS_DATABASES = 256;

/** A private, non-persistent `redis-server` on a free loopback port. */
export interface RedisServerHandle {
  readonly url: string;
  readonly port: number;
  /** The server's process id; undefined while halted. */
  readonly pid: number | undefined;
  /** Stops the server as an outage would (its data, never persisted, is gone), until {@link start}. */
  halt(): Promise<void>;
  /** Starts a halted server again, empty, on the same port. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServerHandle> {
  const command = await locateBinary(binaries.redisServer);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-redis-'));
  let lastError: Error | undefined;
  const launch = async (port: number): Promise<ManagedProcess> => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--databases',
      String(REDIS_DATABASES),
    ];
    const started = ManagedProcess.start('redis-server', command, args);
    try {
      await waitForPort(port, START_TIMEOUT_MS, () => started.isAlive);
    } catch (err) {
      await started.kill();
      throw new Error(`redis-server failed to start: ${(err as Error).message}\n${started.recentOutput}`);
    }
    return started;
  };
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    const port = await freePort();
    try {
      let proc = await launch(port);
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        get pid() {
          return proc.isAlive ? proc.pid : undefined;
        },
        async halt() {
          await proc.stop();
        },
        async start() {
          if (proc.isAlive) return;
          proc = await launch(port);
        },
        async stop() {
          await proc.stop();
          await rm(dir, { recursive: true, force: true });
        },
      };
    } catch (err) {
      lastError = err as Error;
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError ?? new Error('redis-server failed to start');
}
