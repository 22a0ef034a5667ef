import { startInfra } from '@platform/testing';
import type { LocalStackConfig } from './config.js';

export interface Infrastructure {
  natsUrl: string;
  databaseUrl: string;
  redisUrl: string;
  /** True when the stack started its own servers (they go away with it). */
  private: boolean;
  stop(): Promise<void>;
}

/** Uses the configured NATS, Postgres and Redis, or starts private ones in a temp directory. */
export async function provideInfrastructure(config: LocalStackConfig): Promise<Infrastructure> {
  const given = [config.NATS_URL, config.DATABASE_URL, config.REDIS_URL].filter(Boolean).length;
  if (given === 3) {
    return {
      natsUrl: config.NATS_URL!,
      databaseUrl: config.DATABASE_URL!,
      redisUrl: config.REDIS_URL!,
      private: false,
      stop: async () => undefined,
    };
  }
  if (given > 0)
    throw new Error(
      'set all of NATS_URL, DATABASE_URL and REDIS_URL to use your own servers, or none to start private ones',
    );
  const infra = await startInfra();
  return {
    natsUrl: infra.nats.url,
    databaseUrl: await infra.postgres.createDatabase('platform'),
    redisUrl: infra.redis.url,
    private: true,
    stop: () => infra.stop(),
  };
}
