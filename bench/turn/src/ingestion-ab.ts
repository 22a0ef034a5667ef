// Turn cost with long-term memory ingestion on against off, side by side in one sitting: two
// platforms (each its own NATS, database and Redis database on one PostgreSQL and Redis) run the
// same 2-step calculator turn, in alternating rounds, so host drift hits both alike. "On" is the
// production default: every finished turn is published to the memory ingestion work queue, and the
// memory service extracts it (llm-sim answers the extraction instantly) and embeds its episode
// (llm-sim embeddings; pgvector when installed). "Off" sets MEMORY_INGEST_ENABLED=false. Recall
// (prepare-context) runs in both, over the same memory: by default (`OFF_MEMORY=same`) the "off"
// platform's memory is given the turns the "on" platform ingested in its warm-up, so both recall the
// same knowledge and the difference is ingestion's own cost; `OFF_MEMORY=empty` leaves it empty (the
// A/B of sessions 8-11, which also charged "on" for recalling what it stored). After each "on" round the bench waits for the queue to drain and
// reports how long that took, so work deferred past the measurement is visible. Every process's
// CPU (both platforms' services and NATS servers, PostgreSQL by database, Redis, the load
// generator) is read from /proc around each measured phase, with the model, embeddings and queue
// calls per turn, so the difference between the variants can be traced to where it is spent.
// PostgreSQL runs durable (fsync, synchronous_commit, full_page_writes on) unless BENCH_POSTGRES=fast.
// Run: npx nx run bench-turn:bench-ingestion   (env: ROUNDS, N1, N64, CONCURRENCY, WARMUP, RAMP, OFF_MEMORY, BENCH_POSTGRES)
import {
  BENCH_PLATFORM_ENV,
  calculatorTurn,
  closedLoop,
  enableStatementStats,
  intEnv,
  JsonClient,
  postgresDurabilityFromEnv,
  waitForCalculator,
  waitForIngestionDrain,
  type LoadResult,
} from '@platform/bench-kit';
import {
  median,
  percentile,
  startInfra,
  startNatsServer,
  startPlatform,
  type NatsServerHandle,
  type Platform,
} from '@platform/testing';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { SignJWT } from 'jose';
import pg from 'pg';
import { loadavg } from 'node:os';
import { printCostTable } from './ingestion-cost-table.js';
import { printStatementCosts } from './statement-costs.js';
import { captureFinishedTurns, replayFinishedTurns } from './shared-memory-seed.js';
import {
  costPerTurn,
  pooledPerTurn,
  read,
  type MeasuredPlatform,
  type SharedServers,
  type WindowCost,
} from './ingestion-usage.js';

const ROUNDS = intEnv('ROUNDS', 3);
const N1 = intEnv('N1', 200);
const N64 = intEnv('N64', 1_500);
const CONCURRENCY = intEnv('CONCURRENCY', 64);
const WARMUP = intEnv('WARMUP', 100);
const RAMP = intEnv('RAMP', 256);
/** The orchestrators' MEMORY_CONTEXT_TOKENS when set (0 = no recall): to tell recall's cost from ingestion's. */
const RECALL_TOKENS = process.env['RECALL_TOKENS'];
const SECRET = 'bench-secret-bench-secret-bench-secret';
/** What the "off" platform's memory holds: what "on" ingested in its warm-up ("same"), or nothing ("empty"). */
const OFF_MEMORY = process.env['OFF_MEMORY'] ?? 'same';
if (OFF_MEMORY !== 'same' && OFF_MEMORY !== 'empty')
  throw new Error(`OFF_MEMORY must be "same" or "empty", not "${OFF_MEMORY}"`);

interface Variant {
  name: 'ingestion on' | 'ingestion off';
  platform: Platform;
  nats: NatsServerHandle;
  nc: NatsConnection;
  turn: () => Promise<void>;
  c1: LoadResult[];
  c64: LoadResult[];
  database: string;
  /** Per round: the measured phase alone, and the phase with the queue's drain after it. */
  during: WindowCost[];
  throughDrain: WindowCost[];
  drainMs: number[];
}

const POSTGRES = postgresDurabilityFromEnv();
const infra = await startInfra({ postgres: { durability: POSTGRES } });
if (process.env['PG_STATEMENTS'] === '1') await enableStatementStats(infra.postgres);
const shared: SharedServers = { postgresPid: infra.postgres.pid!, redisPid: infra.redis.pid! };
const client = new JsonClient();
const variants: Variant[] = [];
const logger = createLogger({ service: 'bench', level: 'silent' });
try {
  const token = await new SignJWT({ tenant: 'bench' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(SECRET));
  for (const [index, name] of (['ingestion on', 'ingestion off'] as const).entries()) {
    const nats = await startNatsServer();
    const database = `bench_ingestion_${index}`;
    const platform = await startPlatform({
      natsUrl: nats.url,
      databaseUrl: await infra.postgres.createDatabase(database),
      redisUrl: `${infra.descriptor.redisUrl}/${index + 1}`,
      jwtSecret: SECRET,
      // A shared, loaded host (load average 20+) boots a service in more than the default 30 s.
      readyTimeoutMs: 120_000,
      commonEnv: { LOG_LEVEL: 'warn' },
      env: {
        ...BENCH_PLATFORM_ENV,
        orchestrator: {
          ...BENCH_PLATFORM_ENV.orchestrator,
          MEMORY_INGEST_ENABLED: String(name === 'ingestion on'),
          ...(RECALL_TOKENS ? { MEMORY_CONTEXT_TOKENS: RECALL_TOKENS } : {}),
        },
      },
    });
    const nc = await connectNats({ servers: nats.url, name: 'bench', logger });
    let conversation = 0;
    const turn = (): Promise<void> =>
      calculatorTurn(client, `${platform.apiUrl}/v1/conversations/${index}-${++conversation}/messages`, token);
    variants.push({
      name,
      platform,
      nats,
      nc,
      turn,
      database,
      c1: [],
      c64: [],
      during: [],
      throughDrain: [],
      drainMs: [],
    });
  }
  const [on, off] = variants as [Variant, Variant];
  for (const v of variants) await waitForCalculator(v.platform.apiUrl, token);
  const captured = await captureFinishedTurns(on.nc);
  await closedLoop(on.turn, 1, WARMUP);
  await drain(on);
  const onWarmupTurns = await captured.stop();
  await closedLoop(off.turn, 1, WARMUP);
  if (OFF_MEMORY === 'same') {
    const replayed = await replayFinishedTurns(off.nc, onWarmupTurns);
    process.stderr.write(`"off" memory seeded with the ${replayed} turns "on" ingested in its warm-up\n`);
  }
  await drain(off);
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate which variant goes first, so neither always runs on a warmer (or busier) host.
    for (const v of round % 2 ? variants : [...variants].reverse()) {
      v.c1.push(await closedLoop(v.turn, 1, N1));
      await closedLoop(v.turn, CONCURRENCY, RAMP);
      // The warm-up phases' turns are taken off the queue first, so the measured phase carries
      // its own ingestion work and no one else's.
      await drain(v);
      const other = variants.find((o) => o !== v)!;
      const before = await read(measured(v), measured(other), shared);
      const result = await closedLoop(v.turn, CONCURRENCY, N64);
      const after = await read(measured(v), measured(other), shared);
      v.c64.push(result);
      v.drainMs.push(await drain(v));
      const drained = await read(measured(v), measured(other), shared);
      const turns = result.latenciesMs.length;
      v.during.push(costPerTurn(before, after, turns));
      v.throughDrain.push(costPerTurn(before, drained, turns));
      process.stderr.write(`round ${round}/${ROUNDS}: ${v.name} done\n`);
    }
  }
  report(variants);
  printCostTable({
    on: on.during,
    onThroughDrain: on.throughDrain,
    off: off.during,
    offThroughDrain: off.throughDrain,
  });
  for (const v of variants)
    process.stdout.write(`${v.name}: turns by recall outcome: ${JSON.stringify(await recallOutcomes(v))}\n`);
  if (process.env['PG_STATEMENTS'] === '1')
    for (const v of variants)
      await printStatementCosts(infra.postgres, v.database, v.name, WARMUP + ROUNDS * (N1 + RAMP + N64));
  process.stdout.write(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
} finally {
  client.close();
  for (const v of variants) {
    await v.nc.close().catch(() => undefined);
    await v.platform.stop();
    await v.nats.stop();
  }
  await infra.stop();
}

function measured(v: Variant): MeasuredPlatform {
  return { platform: v.platform, natsPid: v.nats.pid!, nc: v.nc, database: v.database };
}

/** How the orchestrator's recall step ended for the variant's turns (injected, nothing_relevant, timed_out...). */
async function recallOutcomes(v: Variant): Promise<Record<string, number>> {
  const db = new pg.Client({ connectionString: infra.postgres.url(v.database) });
  await db.connect();
  try {
    const { rows } = await db.query<{ status: string | null; turns: string }>(
      `SELECT result->'memoryRecall'->>'status' AS status, count(*) AS turns FROM orchestrator.runs GROUP BY 1 ORDER BY 2 DESC`,
    );
    return Object.fromEntries(rows.map((r) => [r.status ?? 'none', Number(r.turns)]));
  } finally {
    await db.end();
  }
}

/** Waits until the memory service has taken every published turn off the work queue; returns how long that took. */
function drain(v: Variant): Promise<number> {
  return waitForIngestionDrain(v.nc);
}

function report(all: Variant[]): void {
  const p99 = (values: readonly number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      99,
    );
  const fmt = (n: number, digits = 1) => n.toFixed(digits);
  const row = (v: Variant) => {
    const throughput = median(v.c64.map((r) => (r.latenciesMs.length / r.elapsedMs) * 1000));
    // Every round's turns over every round's time: with two rounds the nearest-rank median is the slower round.
    const pooledThroughput =
      (v.c64.reduce((sum, r) => sum + r.latenciesMs.length, 0) / v.c64.reduce((sum, r) => sum + r.elapsedMs, 0)) * 1000;
    const errors = [...v.c1, ...v.c64].reduce((sum, r) => sum + r.errors, 0);
    return {
      throughput,
      pooledThroughput,
      cells: [
        fmt(median(v.c1.map((r) => median(r.latenciesMs)))),
        fmt(median(v.c1.map((r) => p99(r.latenciesMs)))),
        fmt(throughput, 0),
        `${fmt(median(v.c64.map((r) => median(r.latenciesMs))))} / ${fmt(median(v.c64.map((r) => p99(r.latenciesMs))))}`,
        fmt(
          pooledPerTurn(v.during, (c) => c.cpuPerTurn.get('orchestrator')),
          2,
        ),
        fmt(
          pooledPerTurn(v.during, (c) => c.cpuPerTurn.get('memory')),
          2,
        ),
        fmt(median(v.drainMs), 0),
        String(errors),
      ],
    };
  };
  const rows = all.map((v) => ({ v, ...row(v) }));
  process.stdout.write(
    `\nIngestion on vs off, 2-step calculator turn, ${ROUNDS} alternating rounds (latency and throughput: medians; CPU: all rounds pooled); "off" memory: ${OFF_MEMORY === 'same' ? 'what "on" ingested in its warm-up' : 'empty'}; PostgreSQL ${POSTGRES}\n`,
  );
  process.stdout.write(
    '| variant | p50 c1 (ms) | p99 c1 (ms) | turns/s c64 | p50 / p99 c64 (ms) | orchestrator CPU ms/turn | memory CPU ms/turn | queue drained after (ms) | errors |\n',
  );
  process.stdout.write('|---|---|---|---|---|---|---|---|---|\n');
  for (const r of rows) process.stdout.write(`| ${r.v.name} | ${r.cells.join(' | ')} |\n`);
  const on = rows.find((r) => r.v.name === 'ingestion on');
  const off = rows.find((r) => r.v.name === 'ingestion off');
  if (on && off) {
    process.stdout.write(`\nthroughput ratio on/off: ${fmt(on.throughput / off.throughput, 3)} (target >= 0.90)\n`);
    process.stdout.write(
      `throughput ratio on/off, all rounds' turns over all rounds' time: ${fmt(on.pooledThroughput / off.pooledThroughput, 3)}\n`,
    );
    const byRound = (v: Variant) => v.c64.map((r) => fmt((r.latenciesMs.length / r.elapsedMs) * 1000, 1)).join(', ');
    process.stdout.write(`turns/s c64 by round, on: ${byRound(on.v)}; off: ${byRound(off.v)}\n`);
  }
  for (const v of all) {
    const first = [...v.c1, ...v.c64].find((r) => r.firstError)?.firstError;
    if (first) process.stdout.write(`${v.name}: first failed turn: ${first.slice(0, 300)}\n`);
  }
}
