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
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServerHandle> {
  const command = await locateBinary(binaries.redisServer);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'platform-redis-'));
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    const port = await freePort();
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--databases', String(REDIS_DATABASES)];
    const proc = ManagedProcess.start('redis-server', command, args);
    try {
      await waitForPort(port, START_TIMEOUT_MS, () => proc.isAlive);
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        async stop() {
          await proc.stop();
          await rm(dir, { recursive: true, force: true });
        },
      };
    } catch (err) {
      lastError = new Error(`redis-server failed to start: ${(err as Error).message}\n${proc.recentOutput}`);
      await proc.kill();
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError ?? new Error('redis-server failed to start');
}
