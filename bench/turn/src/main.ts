// A 2-step turn end to end through the HTTP API (the model asks for `calculator`, then answers),
// with llm-sim answering instantly and every service its own process on private NATS, Postgres
// and Redis: latency at concurrency 1 (cold first turn, then warm), sustained throughput at
// concurrency 64, and CPU and memory per process. Figures are medians over rounds.
// PostgreSQL runs durable (fsync, synchronous_commit, full_page_writes on) unless BENCH_POSTGRES=fast.
// Run: npx nx run bench-turn:bench   (env: ROUNDS, N1, N64, CONCURRENCY, WARMUP, RAMP, BENCH_POSTGRES)
import { median, percentile, startInfra, startPlatform, type Platform, type PlatformApp, type PostgresDurability } from '@platform/testing';
import { SignJWT } from 'jose';
import { closedLoop, type LoadResult } from './driver.js';
import { JsonClient } from './http-client.js';
import { runOpenLoop } from './open-loop-phase.js';
import { cpuCount, cpuOfTree, sampleProcess, type ProcessSample } from './process-usage.js';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (got '${raw}')`);
  return value;
}

const ROUNDS = intEnv('ROUNDS', 3);
const N1 = intEnv('N1', 300);
const N64 = intEnv('N64', 2_000);
const CONCURRENCY = intEnv('CONCURRENCY', 64);
const WARMUP = intEnv('WARMUP', 200);
/** Unmeasured turns at full concurrency before each measured phase: sustained means steady state. */
const RAMP = intEnv('RAMP', 256);
const APPS: PlatformApp[] = ['api', 'orchestrator', 'agent-pool', 'memory', 'tool-runner', 'llm-sim'];
/** Shared servers, measured with their child processes (PostgreSQL runs a process per connection). */
const SERVERS = ['postgres', 'nats-server', 'redis-server'] as const;
type Measured = PlatformApp | (typeof SERVERS)[number] | 'bench driver';
const MEASURED: Measured[] = [...APPS, ...SERVERS, 'bench driver'];
const SECRET = 'bench-secret-bench-secret-bench-secret';
const CONTENT = '[scenario:calculator] What is 12 * (3 + 4)?';

const POSTGRES = postgresDurability(process.env['BENCH_POSTGRES']);
/** `closed` (default): latency at concurrency 1 and throughput at CONCURRENCY; `open`: fixed arrival rates. */
const MODE = process.env['MODE'] ?? 'closed';
if (MODE !== 'closed' && MODE !== 'open') throw new Error(`MODE must be 'closed' or 'open' (got '${MODE}')`);

function fractionsEnv(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined) return fallback;
  if (raw.trim() === '') return [];
  const values = raw.split(',').map(Number);
  if (values.some((v) => !Number.isFinite(v) || v <= 0 || v > 2)) throw new Error(`${name} must be a comma-separated list of fractions in (0, 2] (got '${raw}')`);
  return values;
}

function postgresDurability(raw: string | undefined): PostgresDurability {
  if (raw === undefined || raw === '' || raw === 'durable') return 'durable';
  if (raw === 'fast') return 'fast';
  throw new Error(`BENCH_POSTGRES must be 'durable' (default) or 'fast' (got '${raw}')`);
}

const infra = await startInfra({ postgres: { durability: POSTGRES } });
const client = new JsonClient();
let platform: Platform | undefined;
try {
  platform = await startPlatform({
    natsUrl: infra.descriptor.natsUrl,
    databaseUrl: infra.descriptor.postgresUrl,
    redisUrl: infra.descriptor.redisUrl,
    jwtSecret: SECRET,
    commonEnv: { LOG_LEVEL: 'warn' },
    // Production settings, except what a load test must lift: the per-tenant rate limit (one
    // tenant sends everything), the back-pressure limit, and a larger Postgres pool. The test
    // launcher's fast tool discovery (every second) is put back to the production default.
    env: {
      orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0', MAX_CONCURRENT_TURNS: '1024', DATABASE_POOL_MAX: '20', CATALOG_REFRESH_MS: '5000' },
      'agent-pool': { CATALOG_REFRESH_MS: '5000' },
      // llm-sim stands in for the model provider, whose tracing is not the platform's cost.
      'llm-sim': { OTEL_SDK_DISABLED: 'true' },
      memory: { DATABASE_POOL_MAX: '20' },
    },
  });
  const running = platform;
  const token = await new SignJWT({ tenant: 'bench' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('2h').sign(new TextEncoder().encode(SECRET));
  let conversation = 0;
  const turn = async (): Promise<void> => {
    const response = await client.post(`${running.apiUrl}/v1/conversations/bench-${++conversation}/messages`, { authorization: `Bearer ${token}` }, { content: CONTENT });
    const body = response.body as { response?: string; toolCalls?: unknown[]; error?: { code: string } };
    if (response.status !== 200) throw new Error(`HTTP ${response.status} ${body.error?.code ?? ''}`);
    if (!body.response?.includes('84') || body.toolCalls?.length !== 1) throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 200)}`);
  };
  await waitForTools(running, token);

  const samples = async (): Promise<Map<Measured, ProcessSample>> => {
    const apps = await Promise.all(APPS.map(async (app) => [app, await sampleProcess(running.process(app)!.pid!)] as const));
    const serverPids: Record<(typeof SERVERS)[number], number | undefined> = { postgres: infra.postgres.pid, 'nats-server': infra.nats.pid, 'redis-server': infra.redis.pid };
    const servers = await Promise.all(SERVERS.map(async (name) => [name, { cpuMs: await cpuOfTree(serverPids[name]!), rssMiB: NaN }] as const));
    const self = process.cpuUsage();
    return new Map<Measured, ProcessSample>([...apps, ...servers, ['bench driver', { cpuMs: (self.user + self.system) / 1000, rssMiB: process.memoryUsage().rss / 2 ** 20 }]]);
  };

  const cold = await closedLoop(turn, 1, 1);
  if (cold.errors) throw new Error(`the first turn failed: ${cold.firstError}`);
  await closedLoop(turn, 1, WARMUP);
  if (MODE === 'open') {
    out(`PostgreSQL ${POSTGRES}; ${cpuCount()} CPUs`);
    await runOpenLoop(turn, {
      rounds: ROUNDS,
      concurrency: CONCURRENCY,
      ramp: RAMP,
      saturationTurns: N64,
      fractions: fractionsEnv('OPEN_FRACTIONS', [0.25, 0.5, 0.75]),
      seconds: intEnv('OPEN_SECONDS', 20),
      p99TargetMs: intEnv('P99_TARGET_MS', 100),
      kneeFractions: fractionsEnv('KNEE_FRACTIONS', [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]),
    }, (line) => process.stderr.write(`${line}\n`));
  } else {
    const sequential: LoadResult[] = [];
    const concurrent: Array<LoadResult & { cpu: Map<Measured, number> }> = [];
    const ramps: LoadResult[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      sequential.push(await closedLoop(turn, 1, N1));
      ramps.push(await closedLoop(turn, CONCURRENCY, RAMP));
      const before = await samples();
      const result = await closedLoop(turn, CONCURRENCY, N64);
      const after = await samples();
      concurrent.push({ ...result, cpu: new Map(MEASURED.map((m) => [m, after.get(m)!.cpuMs - before.get(m)!.cpuMs])) });
      process.stderr.write(`round ${round}/${ROUNDS} done\n`);
    }
    const memory = await samples();
    report(cold, sequential, concurrent, ramps, memory);
  }
} finally {
  client.close();
  await platform?.stop();
  await infra.stop();
}

async function waitForTools(p: Platform, token: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    const response = await fetch(`${p.apiUrl}/v1/tools`, { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
    const tools = response?.ok ? ((await response.json()) as { tools: Array<{ name: string }> }).tools : [];
    if (tools.some((t) => t.name === 'calculator')) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the calculator tool was never discovered');
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}

function report(cold: LoadResult, sequential: LoadResult[], concurrent: Array<LoadResult & { cpu: Map<Measured, number> }>, ramps: LoadResult[], memory: Map<Measured, ProcessSample>): void {
  const p50s = sequential.map((r) => median(r.latenciesMs));
  const p99 = (values: readonly number[]): number => percentile([...values].sort((a, b) => a - b), 99);
  const p99s1 = sequential.map((r) => p99(r.latenciesMs));
  const throughputs = concurrent.map((r) => (r.latenciesMs.length / r.elapsedMs) * 1000);
  const p99s = concurrent.map((r) => p99(r.latenciesMs));
  const p50sC = concurrent.map((r) => median(r.latenciesMs));
  const errors = [...sequential, ...ramps, ...concurrent].reduce((sum, r) => sum + r.errors, 0);
  const firstError = [...sequential, ...ramps, ...concurrent].find((r) => r.firstError)?.firstError;
  out(`\n2-step turn through the HTTP API (calculator), llm-sim instant; PostgreSQL ${POSTGRES}; ${ROUNDS} rounds, medians; ${cpuCount()} CPUs`);
  out('| measure | value | target |');
  out('|---|---|---|');
  out(`| cold first turn | ${fmt(cold.latenciesMs[0] ?? NaN)} ms | - |`);
  out(`| p50 at concurrency 1 (warm) | ${fmt(median(p50s))} ms | <= 15 ms |`);
  out(`| p99 at concurrency 1 | ${fmt(median(p99s1))} ms | - |`);
  out(`| throughput at concurrency ${CONCURRENCY} | ${fmt(median(throughputs), 0)} turns/s | >= 200 |`);
  out(`| p50 / p99 at concurrency ${CONCURRENCY} | ${fmt(median(p50sC))} / ${fmt(median(p99s))} ms | p99 <= 250 ms |`);
  const maxes = concurrent.map((r) => Math.max(...r.latenciesMs));
  out(`| slowest turn at concurrency ${CONCURRENCY} | ${fmt(median(maxes))} ms | - |`);
  out(`| errors | ${errors}${firstError ? ` (first: ${firstError})` : ''} | 0 |`);
  out(`\nPer process during the concurrency-${CONCURRENCY} phase (median round):`);
  out('| process | CPU ms per turn | share of one core | RSS at end (MiB) |');
  out('|---|---|---|---|');
  for (const m of MEASURED) {
    const perTurn = concurrent.map((r) => r.cpu.get(m)! / r.latenciesMs.length);
    const share = concurrent.map((r) => r.cpu.get(m)! / r.elapsedMs);
    const rss = memory.get(m)!.rssMiB;
    out(`| ${m} | ${fmt(median(perTurn), 2)} | ${fmt(median(share) * 100, 0)}% | ${Number.isNaN(rss) ? '-' : fmt(rss, 0)} |`);
  }
  const total = concurrent.map((r) => [...r.cpu.values()].reduce((a, b) => a + b, 0) / r.elapsedMs);
  out(`| all of the above | | ${fmt(median(total) * 100, 0)}% of one core (${cpuCount()} cores) | |`);
}
