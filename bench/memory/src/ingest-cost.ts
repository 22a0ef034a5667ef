// What one ingested turn costs, in measures that do not depend on the host's load: CPU time of the
// memory service, of PostgreSQL (postmaster and backends) and of llm-sim per turn (from /proc), and
// pg_stat_statements per turn (calls, rows, time, blocks dirtied, WAL bytes, commits). Turns are
// shaped like bench/turn's calculator turn (user question, tool call, tool result, answer) and
// published straight to the ingestion work queue, one tenant, a new conversation each; every
// `FACT_EVERY`th also states a fact ("I live in CityN") so supersession runs too. Several memory
// checkouts can be compared in one sitting (MEMORY_ROOTS), in alternating rounds, each round on a
// fresh database of one durable PostgreSQL (fsync on).
// Run: npx nx run bench-memory:bench-ingest-cost   (env: TURNS=500 WARMUP=100 ROUNDS=2 FACT_EVERY=4
//      MEMORY_ROOTS=before=/path/to/other/checkout,after=.   MEMORY_ENV=KEY=VALUE;KEY=VALUE   TOP=12
//      CPU_PROFILE_DIR=/tmp/prof: memory's CPU profile of the measured window, via cpu-profile-preload.mjs)
import { jetstream } from '@nats-io/jetstream';
import { cpuOfTree, sampleProcess, waitForIngestionDrain } from '@platform/bench-kit';
import { memoryIngestSubject } from '@platform/contracts';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import {
  median,
  startNatsServer,
  startPostgresServer,
  startServiceProcess,
  workspaceRoot,
  type PostgresServerHandle,
  type ServiceProcess,
  sharedServicePki,
} from '@platform/testing';
import { loadavg } from 'node:os';
import path from 'node:path';
import pg from 'pg';

const TURNS = Number(process.env['TURNS'] ?? 500);
const WARMUP = Number(process.env['WARMUP'] ?? 100);
const ROUNDS = Number(process.env['ROUNDS'] ?? 2);
const FACT_EVERY = Number(process.env['FACT_EVERY'] ?? 4);
const TOP = Number(process.env['TOP'] ?? 12);
const SIM_KEY = 'sk-bench-memory-0123456789';
const TENANT = 'bench';
const PROFILE_DIR = process.env['CPU_PROFILE_DIR'];
const PRELOAD = path.join(path.dirname(new URL(import.meta.url).pathname), 'cpu-profile-preload.mjs');

interface Variant {
  label: string;
  root: string;
  env: Record<string, string>;
  results: RoundResult[];
}

interface RoundResult {
  load: number;
  memoryMs: number;
  postgresMs: number;
  simMs: number;
  commits: number;
  statements: StatementRow[];
}

interface StatementRow {
  query: string;
  calls: number;
  rows: number;
  total_ms: number;
  dirtied: number;
  written: number;
  wal_bytes: number;
}

function variantsFromEnv(): Variant[] {
  const extra = Object.fromEntries(
    (process.env['MEMORY_ENV'] ?? '')
      .split(';')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const spec = process.env['MEMORY_ROOTS'] ?? `this=${workspaceRoot()}`;
  return spec.split(',').map((entry) => {
    const [label, root] = entry.split('=') as [string, string];
    return { label, root: path.resolve(root), env: extra, results: [] };
  });
}

/** A finished calculator turn, as the orchestrator publishes it (messages inline). */
function turnMessage(i: number, prefix: string): string {
  const stated = FACT_EVERY > 0 && i % FACT_EVERY === 0 ? ` By the way, I live in City${i % 40}.` : '';
  return JSON.stringify({
    type: 'memory.turn_finished',
    tenantId: TENANT,
    conversationId: `${prefix}-conv-${i}`,
    runId: `${prefix}-run-${i}`,
    firstSeq: 1,
    lastSeq: 4,
    messages: [
      { seq: 1, message: { role: 'user', content: `What is 12 * (3 + 4)?${stated}` } },
      {
        seq: 2,
        message: {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: `call-${i}`, name: 'calculator', arguments: '{"expression":"12 * (3 + 4)"}' }],
        },
      },
      {
        seq: 3,
        message: {
          role: 'tool',
          toolCallId: `call-${i}`,
          toolName: 'calculator',
          content: '{"result":84}',
          isError: false,
          status: 'success',
        },
      },
      { seq: 4, message: { role: 'assistant', content: '12 * (3 + 4) = 84.' } },
    ],
    finishedAt: new Date().toISOString(),
  });
}

async function publish(nc: NatsConnection, count: number, prefix: string): Promise<void> {
  const js = jetstream(nc);
  for (let i = 0; i < count; i++)
    await js.publish(memoryIngestSubject(TENANT), turnMessage(i, prefix), { msgID: `${prefix}-${i}` });
}

async function commitsOf(admin: pg.Client, database: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1',
    [database],
  );
  return Number(rows[0]?.n ?? 0);
}

async function runRound(
  v: Variant,
  round: number,
  postgres: PostgresServerHandle,
  natsUrl: string,
  simUrl: string,
  sim: ServiceProcess,
  admin: pg.Client,
): Promise<RoundResult> {
  const database = `cost_${v.label.replace(/[^a-z0-9]/g, '_')}_${round}`;
  const url = await postgres.createDatabase(database);
  const memory = await startServiceProcess({
    app: 'memory',
    root: v.root,
    mode: 'source',
    env: {
      ...(await (await sharedServicePki()).env('memory')),
      DATABASE_URL: url,
      DATABASE_POOL_MAX: '20',
      NATS_URL: natsUrl,
      GRPC_PORT: '0',
      OPENAI_BASE_URL: simUrl,
      OPENAI_API_KEY: SIM_KEY,
      MEMORY_EXTRACTION_MODEL: 'sim-1',
      MEMORY_EMBEDDING_MODEL: 'sim-embed-1',
      MEMORY_TOOLS_ENABLED: 'false',
      MEMORY_SESSION_IDLE_MS: '0',
      LOG_LEVEL: 'warn',
      ...v.env,
      ...(PROFILE_DIR ? { CPU_PROFILE_DIR: PROFILE_DIR, NODE_OPTIONS: `--import ${PRELOAD}` } : {}),
    },
  });
  const nc = await connectNats({
    servers: natsUrl,
    name: 'bench-ingest-cost',
    logger: createLogger({ service: 'bench', level: 'warn' }),
  });
  try {
    await publish(nc, WARMUP, `warm${round}${v.label}`);
    await waitForIngestionDrain(nc);
    await admin.query('SELECT pg_stat_statements_reset()');
    const commitsBefore = await commitsOf(admin, database);
    if (PROFILE_DIR) process.kill(memory.pid!, 'SIGUSR2');
    const [m0, p0, s0] = await Promise.all([
      sampleProcess(memory.pid!),
      cpuOfTree(postgres.pid!),
      sampleProcess(sim.pid!),
    ]);
    await publish(nc, TURNS, `r${round}${v.label}`);
    await waitForIngestionDrain(nc);
    if (PROFILE_DIR) process.kill(memory.pid!, 'SIGUSR2');
    const [m1, p1, s1] = await Promise.all([
      sampleProcess(memory.pid!),
      cpuOfTree(postgres.pid!),
      sampleProcess(sim.pid!),
    ]);
    const commits = (await commitsOf(admin, database)) - commitsBefore;
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const stored = Number(
      (await check.query<{ n: string }>('SELECT count(*) AS n FROM memory.ingested_runs')).rows[0]!.n,
    );
    await check.end();
    // A turn the service refused (dead-lettered) would make every figure meaningless.
    if (stored !== WARMUP + TURNS) throw new Error(`${v.label}: ${stored} turns stored, expected ${WARMUP + TURNS}`);
    const { rows } = await admin.query<StatementRow>(
      `SELECT left(regexp_replace(s.query, '\\s+', ' ', 'g'), 110) AS query, s.calls::int AS calls, s.rows::int AS rows, s.total_exec_time AS total_ms,
              s.shared_blks_dirtied::int AS dirtied, s.shared_blks_written::int AS written, s.wal_bytes::bigint AS wal_bytes
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 ORDER BY s.total_exec_time DESC`,
      [database],
    );
    return {
      load: loadavg()[0]!,
      memoryMs: m1.cpuMs - m0.cpuMs,
      postgresMs: p1 - p0,
      simMs: s1.cpuMs - s0.cpuMs,
      commits,
      statements: rows.map((r) => ({ ...r, wal_bytes: Number(r.wal_bytes) })),
    };
  } finally {
    await nc.close();
    await memory.stop();
  }
}

function report(variants: Variant[]): void {
  const per = (n: number) => (n / TURNS).toFixed(2);
  process.stdout.write(
    `\nPer ingested turn (${TURNS} turns a round, ${ROUNDS} alternating rounds, medians; every ${FACT_EVERY}th turn states a fact)\n`,
  );
  process.stdout.write(
    '| variant | memory CPU ms | PostgreSQL CPU ms | llm-sim CPU ms | total ms | statements | commits | WAL bytes | blocks dirtied | load avg |\n|---|---|---|---|---|---|---|---|---|---|\n',
  );
  for (const v of variants) {
    const m = (f: (r: RoundResult) => number) => median(v.results.map(f));
    const statements = m((r) => r.statements.reduce((a, s) => a + s.calls, 0));
    const wal = m((r) => r.statements.reduce((a, s) => a + s.wal_bytes, 0));
    const dirtied = m((r) => r.statements.reduce((a, s) => a + s.dirtied, 0));
    process.stdout.write(
      `| ${v.label} | ${per(m((r) => r.memoryMs))} | ${per(m((r) => r.postgresMs))} | ${per(m((r) => r.simMs))} | ${per(m((r) => r.memoryMs + r.postgresMs + r.simMs))} | ${per(statements)} | ${per(m((r) => r.commits))} | ${(wal / TURNS).toFixed(0)} | ${per(dirtied)} | ${v.results.map((r) => r.load.toFixed(1)).join(', ')} |\n`,
    );
  }
  for (const v of variants) {
    const last = v.results.at(-1)!;
    process.stdout.write(
      `\n${v.label}, last round, top statements by total time (per turn: calls, rows, exec ms, blocks dirtied, WAL bytes)\n`,
    );
    for (const s of last.statements.slice(0, TOP)) {
      process.stdout.write(
        `  ${per(s.calls).padStart(6)} ${per(s.rows).padStart(6)} ${(s.total_ms / TURNS).toFixed(3).padStart(7)} ${per(s.dirtied).padStart(6)} ${(s.wal_bytes / TURNS).toFixed(0).padStart(6)}  ${s.query}\n`,
      );
    }
  }
}

async function main(): Promise<void> {
  const variants = variantsFromEnv();
  const [postgres, nats] = await Promise.all([startPostgresServer({ durability: 'durable' }), startNatsServer()]);
  const sim = await startServiceProcess({
    app: 'llm-sim',
    mode: 'source',
    telemetry: false,
    env: { LLM_SIM_PORT: '0', LLM_SIM_API_KEY: SIM_KEY, LOG_LEVEL: 'warn' },
  });
  const simUrl = `http://127.0.0.1:${String(sim.ready['port'])}/v1`;
  const admin = new pg.Client({ connectionString: postgres.url() });
  try {
    // pg_stat_statements needs preloading: set it, restart, create the view (stats are cluster-wide, filtered by database).
    const setup = new pg.Client({ connectionString: postgres.url() });
    setup.on('error', () => undefined);
    await setup.connect();
    await setup.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
    await setup.query(`ALTER SYSTEM SET track_io_timing = 'on'`);
    await setup.end();
    await postgres.halt();
    await postgres.start();
    admin.on('error', (err) => process.stderr.write(`admin connection: ${err.message}\n`));
    await admin.connect();
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // Statements run by triggers and functions count too (the vocabulary maintenance).
    await admin.query(`ALTER SYSTEM SET pg_stat_statements.track = 'all'`);
    await admin.query('SELECT pg_reload_conf()');
    for (let round = 1; round <= ROUNDS; round++) {
      for (const v of round % 2 ? variants : [...variants].reverse()) {
        v.results.push(await runRound(v, round, postgres, nats.url, simUrl, sim, admin));
        process.stderr.write(`round ${round}/${ROUNDS}: ${v.label} done (load ${loadavg()[0]!.toFixed(1)})\n`);
      }
    }
    report(variants);
  } finally {
    await admin.end().catch(() => undefined);
    await sim.stop();
    await Promise.all([postgres.stop(), nats.stop()]);
  }
}

await main();
