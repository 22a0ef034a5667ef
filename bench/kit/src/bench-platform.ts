// The whole platform as bench/turn measures it: every service its own process from its built
// output, on private NATS, PostgreSQL (durable unless told otherwise) and Redis, with production
// settings except what a load test must lift; and the 2-step calculator turn through its HTTP API.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  freePort,
  PLATFORM_APPS,
  startInfra,
  startPlatform,
  type Infra,
  type Platform,
  type PlatformApp,
  type PostgresDurability,
} from '@platform/testing';
import { SignJWT } from 'jose';
import { CALCULATOR_PROMPT, SIM_MODEL } from './calculator.js';
import { readDutyCounters, type DutyCounters } from './duty-skips.js';
import { waitForIngestionDrain } from './ingestion-queue.js';
import { JsonClient } from './json-client.js';
import { enableStatementStats } from './pg-statement-stats.js';
import { cpuOfTree, sampleProcess, type ProcessSample } from './process-usage.js';

const SECRET = 'bench-secret-bench-secret-bench-secret';
/** What llm-sim's platform-started process accepts (libs/testing's startPlatform). */
const SIM_API_KEY = 'sim-key';

/** Shared servers, measured with their child processes (PostgreSQL runs a process per connection). */
export const BENCH_SERVERS = ['postgres', 'nats-server', 'redis-server'] as const;
export type BenchServer = (typeof BENCH_SERVERS)[number];
/** A process the bench measures: a platform app or one of the shared servers. */
export type PlatformProcess = PlatformApp | BenchServer;

/**
 * Production settings, except what a load test must lift: the per-tenant rate limit (one tenant
 * sends everything), the back-pressure limit, and a larger Postgres pool. The test launcher's fast
 * tool discovery (every second) is put back to the production default. llm-sim stands in for the
 * model provider, whose tracing is not the platform's cost.
 */
export const BENCH_PLATFORM_ENV: Partial<Record<PlatformApp, Record<string, string>>> = {
  orchestrator: {
    RATE_LIMIT_TURNS_PER_MINUTE: '0',
    MAX_CONCURRENT_TURNS: '1024',
    DATABASE_POOL_MAX: '20',
    CATALOG_REFRESH_MS: '5000',
  },
  'agent-pool': { CATALOG_REFRESH_MS: '5000' },
  'llm-sim': { OTEL_SDK_DISABLED: 'true' },
  memory: { DATABASE_POOL_MAX: '20' },
};

/** `BENCH_POSTGRES`: `durable` (default, production) or `fast` (the test launcher's settings). */
export function postgresDurabilityFromEnv(raw = process.env['BENCH_POSTGRES']): PostgresDurability {
  if (raw === undefined || raw === '' || raw === 'durable') return 'durable';
  if (raw === 'fast') return 'fast';
  throw new Error(`BENCH_POSTGRES must be 'durable' (default) or 'fast' (got '${raw}')`);
}

export interface BenchPlatform {
  readonly infra: Infra;
  readonly platform: Platform;
  readonly durability: PostgresDurability;
  /** The platform's llm-sim as an OpenAI-compatible endpoint (`…/v1`), for clients outside it. */
  readonly model: { baseURL: string; apiKey: string; model: string };
  /** llm-sim's root URL, for its test-only `/_sim/*` endpoints. */
  readonly llmSimUrl: string;
  /** A bearer token of the bench's tenant (`bench`), for requests of the bench's own. */
  readonly token: string;
  /** A token of the bench's tenant with the `developer` role (to write agents). */
  readonly developerToken: string;
  /**
   * One calculator turn in a new conversation; throws unless it answered 200 with the tool's
   * result. `fields` go into the message's body beside its content (e.g. `{ agent: … }`).
   */
  turn(headers?: Record<string, string>, fields?: Record<string, unknown>): Promise<void>;
  /** Each platform service's runtime diagnostics port, when started with RUNTIME_DIAGNOSTICS_PORT. */
  diagnosticsPorts(): Map<PlatformApp, number>;
  /** CPU and memory so far of every platform app and shared server. */
  sample(): Promise<Map<PlatformProcess, ProcessSample>>;
  /** Waits until memory's ingestion queue is empty; returns how long that took. */
  drainIngestion(): Promise<number>;
  /** The counters of duties turns skip (recall shed or timed out, turns not sent to memory); needs `dutyCounters`. */
  duties(): Promise<DutyCounters>;
  stop(): Promise<void>;
}

export interface BenchPlatformOptions {
  durability: PostgresDurability;
  /** Extra environment for every service (e.g. the time breakdown's trace export and diagnostics). */
  env?: Record<string, string>;
  /** Preload pg_stat_statements in the private PostgreSQL before any service connects (`pg-statement-stats.ts`). */
  statementStats?: boolean;
  /** Settings of single apps over {@link BENCH_PLATFORM_ENV}'s (e.g. the orchestrator's admission limit). */
  appEnv?: Partial<Record<PlatformApp, Record<string, string>>>;
  /** Serve NATS's monitoring endpoint (`infra.nats.monitorUrl`), for message counts. */
  natsMonitor?: boolean;
  /**
   * Export the orchestrator's metrics (Prometheus, on a private port), for {@link BenchPlatform.duties}:
   * what share of turns skipped a duty. Production exports metrics too.
   */
  dutyCounters?: boolean;
}

/** {@link BENCH_PLATFORM_ENV} with `overrides` laid over it, app by app. */
function benchEnv(
  overrides: Partial<Record<PlatformApp, Record<string, string>>> = {},
): Partial<Record<PlatformApp, Record<string, string>>> {
  const apps = new Set([...Object.keys(BENCH_PLATFORM_ENV), ...Object.keys(overrides)]) as Set<PlatformApp>;
  return Object.fromEntries([...apps].map((app) => [app, { ...BENCH_PLATFORM_ENV[app], ...overrides[app] }]));
}

export async function startBenchPlatform(options: BenchPlatformOptions): Promise<BenchPlatform> {
  const infra = await startInfra({
    postgres: { durability: options.durability },
    ...(options.natsMonitor ? { nats: { monitor: true } } : {}),
  });
  const client = new JsonClient();
  let platform: Platform | undefined;
  let nc: NatsConnection | undefined;
  try {
    if (options.statementStats) await enableStatementStats(infra.postgres);
    const metricsPort = options.dutyCounters ? await freePort() : undefined;
    const metrics: Record<string, string> = metricsPort
      ? {
          OTEL_METRICS_EXPORTER: 'prometheus',
          OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
          OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort),
        }
      : {};
    platform = await startPlatform({
      natsUrl: infra.descriptor.natsUrl,
      databaseUrl: infra.descriptor.postgresUrl,
      redisUrl: infra.descriptor.redisUrl,
      jwtSecret: SECRET,
      commonEnv: { LOG_LEVEL: 'warn', ...options.env },
      env: benchEnv({ ...options.appEnv, orchestrator: { ...metrics, ...options.appEnv?.orchestrator } }),
    });
    nc = await connect({ servers: infra.descriptor.natsUrl, name: 'bench' });
    const running = platform;
    const connection = nc;
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT({ tenant: 'bench', ...claims })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt()
        .setExpirationTime('12h')
        .sign(new TextEncoder().encode(SECRET));
    const token = await sign({});
    const developerToken = await sign({ roles: ['developer'] });
    await waitForCalculator(running.apiUrl, token);
    const llmSimUrl = running.llmSimUrl!;
    let conversation = 0;
    const serverPids: Record<BenchServer, number | undefined> = {
      postgres: infra.postgres.pid,
      'nats-server': infra.nats.pid,
      'redis-server': infra.redis.pid,
    };
    return {
      infra,
      platform: running,
      durability: options.durability,
      model: { baseURL: `${llmSimUrl}/v1`, apiKey: SIM_API_KEY, model: SIM_MODEL },
      llmSimUrl,
      token,
      developerToken,
      async turn(headers = {}, fields = {}) {
        await calculatorTurn(
          client,
          `${running.apiUrl}/v1/conversations/bench-${++conversation}/messages`,
          token,
          headers,
          fields,
        );
      },
      diagnosticsPorts() {
        const ports = new Map<PlatformApp, number>();
        for (const app of PLATFORM_APPS) {
          const port = running.process(app)?.ready['diagnosticsPort'];
          if (typeof port === 'number') ports.set(app, port);
        }
        return ports;
      },
      async sample() {
        const apps = await Promise.all(
          PLATFORM_APPS.map(async (app) => [app, await sampleProcess(running.process(app)!.pid!)] as const),
        );
        const servers = await Promise.all(
          BENCH_SERVERS.map(
            async (name) => [name, { cpuMs: await cpuOfTree(serverPids[name]!), rssMiB: NaN }] as const,
          ),
        );
        return new Map<PlatformProcess, ProcessSample>([...apps, ...servers]);
      },
      drainIngestion: () => waitForIngestionDrain(connection),
      duties() {
        if (!metricsPort) throw new Error('startBenchPlatform({ dutyCounters: true }) reads the duties turns skip');
        return readDutyCounters(`http://127.0.0.1:${metricsPort}/metrics`, infra.descriptor.natsUrl);
      },
      async stop() {
        client.close();
        await connection.close().catch(() => undefined);
        await running.stop();
        await infra.stop();
      },
    };
  } catch (error) {
    client.close();
    await nc?.close().catch(() => undefined);
    await platform?.stop();
    await infra.stop();
    throw error;
  }
}

/** POSTs the calculator turn; throws unless the answer is 200, quotes 84, and one tool call succeeded. */
export async function calculatorTurn(
  client: JsonClient,
  url: string,
  token: string,
  headers: Record<string, string> = {},
  fields: Record<string, unknown> = {},
): Promise<void> {
  const response = await client.post(
    url,
    { ...headers, authorization: `Bearer ${token}` },
    { ...fields, content: CALCULATOR_PROMPT },
  );
  const body = response.body as {
    response?: string;
    toolCalls?: Array<{ name?: string; status?: string }>;
    error?: { code: string };
  };
  if (response.status !== 200) throw new Error(`HTTP ${response.status} ${body.error?.code ?? ''}`);
  const call = body.toolCalls?.length === 1 ? body.toolCalls[0] : undefined;
  if (!body.response?.includes('= 84') || call?.name !== 'calculator' || call.status !== 'success')
    throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 200)}`);
}

/** Waits until the api lists the calculator tool (the tool runner has registered). */
export async function waitForCalculator(apiUrl: string, token: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    const response = await fetch(`${apiUrl}/v1/tools`, { headers: { authorization: `Bearer ${token}` } }).catch(
      () => undefined,
    );
    const tools = response?.ok ? ((await response.json()) as { tools: Array<{ name: string }> }).tools : [];
    if (tools.some((t) => t.name === 'calculator')) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the calculator tool was never discovered');
}
