import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export type { Redis } from 'ioredis';

export interface RedisOptions {
  url: string;
  /** Shown in CLIENT LIST. */
  name: string;
  logger: Logger;
  /**
   * The longest a command may wait for its reply, queued while disconnected included (default
   * 1000 ms). Past it the command fails with "Command timed out", so a hung or unreachable Redis
   * costs each caller at most this long.
   */
  commandTimeoutMs?: number;
}

/**
 * A Redis client that reconnects with capped backoff. Redis holds only what may be lost
 * (locks, limits, caches), so commands fail fast while it is down instead of queueing forever.
 */
export function createRedis(options: RedisOptions): Redis {
  const client = new Redis(options.url, {
    connectionName: options.name,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    commandTimeout: options.commandTimeoutMs ?? 1_000,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2_000),
  });
  client.on('error', (err: Error) => options.logger.warn({ err: err.message }, 'redis error'));
  client.on('ready', () => options.logger.debug('redis ready'));
  return client;
}
