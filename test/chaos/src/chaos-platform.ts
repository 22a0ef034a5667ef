// The platform the chaos suite breaks: its own NATS (JetStream on disk), PostgreSQL and Redis,
// whose outages the cases cause; the services reach PostgreSQL through a fault-injecting proxy;
// two orchestrator replicas; the counting runner; and a separate "books" Redis no fault touches.
import { createLogger, createRedis, type Redis } from '@platform/service-kit';
import {
  ManagedProcess,
  startFaultProxy,
  startNatsServer,
  startPlatform,
  startPostgresServer,
  startRedisServer,
  workspaceRoot,
  type FaultProxy,
  type NatsServerHandle,
  type Platform,
  type PostgresServerHandle,
  type RedisServerHandle,
} from '@platform/testing';
import { SignJWT } from 'jose';
import pg from 'pg';

const JWT_SECRET = 'chaos-secret-chaos-secret-chaos-secret';
const TENANT = 'chaos-tenant';

export interface ChaosPlatform {
  readonly platform: Platform;
  readonly nats: NatsServerHandle;
  readonly postgres: PostgresServerHandle;
  readonly redis: RedisServerHandle;
  /** Between the services and PostgreSQL. */
  readonly postgresProxy: FaultProxy;
  /** The books: side effects counted by the runner, never faulted. */
  readonly books: Redis;
  /** Straight to PostgreSQL (not through the proxy), for checking the run records. */
  readonly database: pg.Pool;
  readonly token: string;
  readonly runner: () => ManagedProcess | undefined;
  startRunner(): Promise<void>;
  killRunner(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Settings that keep a case short without changing what happens: leases, recovery sweeps and
 * polls run faster than in production, the tool breaker's cooldown is shorter, and the api gives
 * up on a turn (with a typed error) well before a client's deadline.
 */
const ORCHESTRATOR_ENV = {
  RATE_LIMIT_TURNS_PER_MINUTE: '0',
  RUN_LEASE_MS: '3000',
  RECOVERY_INTERVAL_MS: '1000',
  RUN_POLL_MS: '200',
  LLM_TIMEOUT_MS: '3000',
  LLM_RETRY_BASE_DELAY_MS: '200',
  TOOL_BREAKER_COOLDOWN_MS: '2000',
  TURN_TIMEOUT_MS: '25000',
  SHUTDOWN_GRACE_MS: '1000',
  GRPC_DEADLINE_MS: '5000',
};
export const API_TURN_WAIT_MS = 30_000;

export async function startChaosPlatform(onLine: (line: string) => void): Promise<ChaosPlatform> {
  const [nats, postgres, redis, booksServer] = await Promise.all([
    startNatsServer(),
    startPostgresServer(),
    startRedisServer(),
    startRedisServer(),
  ]);
  const postgresProxy = await startFaultProxy({ target: { port: postgres.port } });
  await postgres.createDatabase('chaos');
  const logger = createLogger({ service: 'chaos', level: 'silent' });
  const books = createRedis({ url: booksServer.url, name: 'chaos-books', logger });
  const database = new pg.Pool({ connectionString: postgres.url('chaos'), max: 2 });
  database.on('error', () => undefined); // the Postgres outage case drops these connections too
  let runner: ManagedProcess | undefined;
  const startRunner = async (): Promise<void> => {
    runner = ManagedProcess.start(
      'counting-runner',
      process.execPath,
      ['--conditions=@platform/source', '--import', 'tsx', 'test/chaos/src/fixtures/counting-runner.ts'],
      {
        cwd: workspaceRoot(),
        env: {
          ...process.env,
          NATS_URL: nats.url,
          REDIS_URL: redis.url,
          BOOKS_REDIS_URL: booksServer.url,
          OTEL_SDK_DISABLED: 'true',
        },
      },
    );
    await runner.waitForOutput((out) => out.includes('"msg":"ready"'), 120_000);
  };
  let platform: Platform | undefined;
  try {
    platform = await startPlatform({
      natsUrl: nats.url,
      databaseUrl: `postgres://postgres@127.0.0.1:${postgresProxy.port}/chaos`,
      redisUrl: redis.url,
      jwtSecret: JWT_SECRET,
      orchestratorReplicas: 2,
      // A service started again mid-load shares the machine with the load and the other services.
      readyTimeoutMs: 120_000,
      commonEnv: { LOG_LEVEL: 'warn' },
      env: {
        orchestrator: ORCHESTRATOR_ENV,
        api: { TURN_WAIT_MS: String(API_TURN_WAIT_MS) },
        'llm-sim': { OTEL_SDK_DISABLED: 'true' },
      },
      onLine: (app, line) => onLine(`[${app}] ${line}`),
    });
    await startRunner();
  } catch (err) {
    await platform?.stop();
    await runner?.kill();
    await Promise.all([nats.stop(), postgres.stop(), redis.stop(), booksServer.stop(), postgresProxy.stop()]);
    throw err;
  }
  const token = await new SignJWT({ tenant: TENANT })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('chaos-user')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  const running = platform;
  return {
    platform: running,
    nats,
    postgres,
    redis,
    postgresProxy,
    books,
    database,
    token,
    runner: () => runner,
    startRunner,
    async killRunner() {
      await runner?.kill();
    },
    async stop() {
      books.disconnect();
      await database.end();
      await running.stop();
      await runner?.stop();
      await postgresProxy.stop();
      await Promise.all([nats.stop(), postgres.stop(), redis.stop(), booksServer.stop()]);
    },
  };
}

/** Waits until the orchestrators list the tools (discovery is periodic). */
export async function waitForTools(chaos: ChaosPlatform, tools: string[], timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const response = await fetch(`${chaos.platform.apiUrl}/v1/tools`, {
      headers: { authorization: `Bearer ${chaos.token}` },
    }).catch(() => undefined);
    const listed = response?.ok
      ? ((await response.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)
      : [];
    if (tools.every((t) => listed.includes(t))) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the tool catalog never listed ${tools.join(', ')}`);
}
