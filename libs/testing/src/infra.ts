import { startNatsServer, type NatsServerHandle, type NatsServerOptions } from './nats-server.js';
import {
  pgvectorInstalled,
  startPostgresServer,
  type PostgresServerHandle,
  type PostgresServerOptions,
} from './postgres-server.js';
import { startRedisServer, type RedisServerHandle } from './redis-server.js';

/** Where a test run's private servers listen; passed from the global setup to every suite. */
export interface InfraDescriptor {
  readonly natsUrl: string;
  /** Superuser connection string to the cluster's `postgres` database. */
  readonly postgresUrl: string;
  readonly redisUrl: string;
  /** Whether the shared PostgreSQL has the pgvector (`vector`) extension installed. */
  readonly pgvector: boolean;
}

/** Private NATS (JetStream), PostgreSQL and Redis servers for one test run. */
export interface Infra {
  readonly descriptor: InfraDescriptor;
  readonly nats: NatsServerHandle;
  readonly postgres: PostgresServerHandle;
  readonly redis: RedisServerHandle;
  stop(): Promise<void>;
}

export interface InfraOptions {
  /** PostgreSQL's settings; tests keep the default (`fast`), benchmarks run `durable`. */
  postgres?: PostgresServerOptions;
  /** NATS's settings (e.g. `monitor` for a benchmark's message counts). */
  nats?: NatsServerOptions;
}

/** Starts all three servers in parallel; if one fails, the others are stopped before the error is thrown. */
export async function startInfra(options: InfraOptions = {}): Promise<Infra> {
  const results = await Promise.allSettled([
    startNatsServer(options.nats),
    startPostgresServer(options.postgres),
    startRedisServer(),
  ]);
  const [nats, postgres, redis] = results;
  if (nats.status !== 'fulfilled' || postgres.status !== 'fulfilled' || redis.status !== 'fulfilled') {
    const started = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);
    await Promise.all(started.map((server) => server.stop()));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    throw failure?.reason instanceof Error ? failure.reason : new Error(String(failure?.reason));
  }
  return {
    descriptor: {
      natsUrl: nats.value.url,
      postgresUrl: postgres.value.url(),
      redisUrl: redis.value.url,
      pgvector: await pgvectorInstalled(),
    },
    nats: nats.value,
    postgres: postgres.value,
    redis: redis.value,
    async stop() {
      await Promise.all([nats.value.stop(), postgres.value.stop(), redis.value.stop()]);
    },
  };
}
