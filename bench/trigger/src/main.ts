// The trigger service under a burst: TASKS every-minute tasks (so their times coincide at each
// minute boundary), a no-op custom executor served over NATS and reached through the
// orchestrator's tool gate (a real orchestrator process), with 1 and with 3 replicas (separate
// processes, built output) on private NATS and a durable PostgreSQL. Reports fire lag (scheduled time -> executor called)
// p50/p99/max, the time to drain the burst, and checks that no fire was lost or doubled.
// Run: npx nx run bench-trigger:bench   (env: TASKS, REPLICAS, ROUNDS)
import { triggerV1 } from '@platform/proto';
import { connectNats, createGrpcClient, createLogger, MutualTlsTransport } from '@platform/service-kit';
import {
  median,
  percentile,
  sharedServicePki,
  startNatsServer,
  startPostgresServer,
  startRedisServer,
  startServiceProcess,
  testCertificates,
  type ServiceProcess,
} from '@platform/testing';
import { defineTool, serveRunner } from '@platform/tool-sdk';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { z } from 'zod';
import { orchestratorDrainRound } from './orchestrator-drain.js';
import { startToolGate, type ToolGateProcess } from './tool-gate-process.js';
import { enableStatementStats, resetStatementStats, topStatements } from '@platform/bench-kit';

function intEnv(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be an integer of at least ${min} (got '${raw}')`);
  return value;
}

const TASKS = intEnv('TASKS', 10_000);
const ROUNDS = intEnv('ROUNDS', 1);
const REPLICA_COUNTS = (process.env['REPLICAS'] ?? '1,3').split(',').map(Number);
const TENANTS = 100;
const CREATE_CONCURRENCY = 32;
const EXECUTOR = 'bench_noop';
const EVENTS = intEnv('EVENTS', 500, 0);
/** Tasks of the orchestrator-executor burst (0 skips it). */
const ORCH_TASKS = intEnv('ORCH_TASKS', 500, 0);
/** Executions one replica runs at once (TRIGGER_MAX_CONCURRENT_FIRES); replicas x this must stay under the runner's maxConcurrency (4096), or calls come back busy and wait a second. */
const MAX_CONCURRENT_FIRES = intEnv('MAX_CONCURRENT_FIRES', 512);
/** TRIGGER_CLAIM_AHEAD_MS of the replicas (unset: the service's default; 0 turns claiming ahead off, for an A/B). */
const CLAIM_AHEAD_MS = process.env['CLAIM_AHEAD_MS'];
/** TRIGGER_EXECUTOR_BATCH_MAX of the replicas (unset: the service's default; 1 sends every fire alone, for an A/B). */
const EXECUTOR_BATCH_MAX = process.env['EXECUTOR_BATCH_MAX'];
/** `1`: print the statements that took PostgreSQL's time from the burst until it drained (pg_stat_statements). */
const PG_STATEMENTS = process.env['PG_STATEMENTS'] === '1';
/** A directory: each replica's CPU profile of the burst (from its time until it drained) is written there. */
const REPLICA_PROFILE_DIR = process.env['REPLICA_PROFILE_DIR'];
const PROFILE_PRELOAD = new URL('../../memory/src/cpu-profile-preload.mjs', import.meta.url).pathname;
/** event id -> when it was published (event-to-executor latency). */
const published = new Map<string, number>();
const eventLatencies: number[] = [];
const logger = createLogger({ service: 'bench-trigger', level: 'warn' });

const nats = await startNatsServer();
const postgres = await startPostgresServer({ durability: 'durable' });
const redis = await startRedisServer();
if (PG_STATEMENTS) await enableStatementStats(postgres);
const nc = await connectNats({ servers: nats.url, name: 'bench-trigger', logger });
/** (task, scheduled time) -> when the executor was first called for it, and how often. */
let calls = new Map<string, { lagMs: number; count: number; scheduledAt: string }>();
const noop = defineTool({
  name: EXECUTOR,
  description: 'Does nothing; records when it was called.',
  input: z.object({ taskId: z.string(), scheduledAt: z.string(), payload: z.unknown() }).passthrough(),
  sideEffect: 'none',
  // Only a declared executor may be named as a task's executor (docs/triggers.md).
  executor: true,
  handler: async ({ taskId, scheduledAt, payload }) => {
    const eventId = (payload as { eventId?: string } | null)?.eventId;
    if (eventId && published.has(eventId)) {
      eventLatencies.push(Date.now() - published.get(eventId)!);
      return null;
    }
    const key = `${taskId}|${scheduledAt}`;
    const seen = calls.get(key);
    if (seen) seen.count++;
    else calls.set(key, { lagMs: Date.now() - Date.parse(scheduledAt), count: 1, scheduledAt });
    return null;
  },
});
const runner = await serveRunner({
  nc,
  name: 'bench-executor',
  version: '1.0.0',
  tools: [noop],
  logger,
  maxConcurrency: 4_096,
});

interface RoundResult {
  replicas: number;
  createMs: number;
  p50: number;
  p99: number;
  max: number;
  lost: number;
  /** Fires not recorded as succeeded when the burst was over. */
  unsettled: number;
  doubled: number;
  /** From the burst's time until its last fire reached the executor: commits and WAL flushes in PostgreSQL, per fire. */
  commitsPerFire: number;
  walFlushesPerFire: number;
  /** CPU time (user + system) of the replicas from the burst's time until drained, per fire. */
  replicaCpuMsPerFire: number;
  /** The same for PostgreSQL (the postmaster and its children). */
  postgresCpuMsPerFire: number;
  /** The same for nats-server, and for this process (the no-op executor answering the calls). */
  natsCpuMsPerFire: number;
  executorCpuMsPerFire: number;
  /** The same for the orchestrator serving the tool gate (CallToolBatch) the replicas send the fires through. */
  gateCpuMsPerFire: number;
  /** How busy the machine's cores were (every process, this bench's and any other) from the burst until drained: 1 = all of them. */
  coresBusy: number;
  /** The first fire of the burst to reach the executor: how long after the scheduled time. */
  min: number;
  /** From the burst's time until every fire's outcome was recorded (no fire of the burst left running). */
  settledMs: number;
  /** CPU of the replicas and of PostgreSQL over that longer window, per fire: the whole cost of a fire. */
  replicaCpuMsPerSettledFire: number;
  postgresCpuMsPerSettledFire: number;
}

/** Fires of the burst not settled yet (still running: executing, or their outcome not written). */
async function runningFires(databaseUrl: string, burst: number): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM trigger.fires WHERE scheduled_at = $1 AND status = 'running'`,
      [new Date(burst)],
    );
    return Number(rows[0]!.n);
  } finally {
    await db.end();
  }
}

/** The fields of /proc/<pid>/stat after the command (the 3rd field first); null when the process is gone. */
function procStat(pid: number | string): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return null;
  }
}

/** CPU time used so far by each process (user + system, from /proc; Linux), in ms. */
function cpuMs(pids: number[]): Map<number, number> {
  const used = new Map<number, number>();
  for (const pid of pids) {
    const fields = procStat(pid);
    // utime and stime are the 14th and 15th fields of stat, in clock ticks (100 per second).
    if (fields) used.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return used;
}

/** The machine's CPU time so far, all cores: busy (not idle or waiting for I/O) and in all, in ms (/proc/stat). */
function machineCpuMs(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0) * 10;
  const idle = (fields[3]! + fields[4]!) * 10;
  return { busy: total - idle, total };
}

/** CPU time the processes used between two readings (a process gone by the second counts nothing). */
function cpuUsedMs(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** The postmaster and its children (backends, WAL writer, checkpointer…). */
function postgresPids(): number[] {
  const postmaster = postgres.pid;
  if (postmaster === undefined) return [];
  const children = readdirSync('/proc').filter(
    (name) => /^\d+$/.test(name) && procStat(name)?.[1] === String(postmaster),
  );
  return [postmaster, ...children.map(Number)];
}

/** Commits of one database and WAL flushes of the cluster so far. */
async function pgActivity(databaseUrl: string): Promise<{ commits: number; walFlushes: number }> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ commits: string; flushes: string }>(
      `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS commits, (SELECT wal_sync FROM pg_stat_wal) AS flushes`,
    );
    return { commits: Number(rows[0]!.commits), walFlushes: Number(rows[0]!.flushes) };
  } finally {
    await db.end();
  }
}

async function startReplicas(databaseUrl: string, count: number, gate: ToolGateProcess): Promise<ServiceProcess[]> {
  const env = {
    ...(await (await sharedServicePki()).env('trigger')),
    DATABASE_URL: databaseUrl,
    ORCHESTRATOR_ADDRESS: gate.address,
    NATS_URL: nats.url,
    GRPC_PORT: '0',
    LOG_LEVEL: 'warn',
    TRIGGER_MAX_CONCURRENT_FIRES: String(MAX_CONCURRENT_FIRES),
    ...(CLAIM_AHEAD_MS === undefined ? {} : { TRIGGER_CLAIM_AHEAD_MS: CLAIM_AHEAD_MS }),
    ...(EXECUTOR_BATCH_MAX === undefined ? {} : { TRIGGER_EXECUTOR_BATCH_MAX: EXECUTOR_BATCH_MAX }),
    DATABASE_POOL_MAX: '20',
    // e.g. BENCH_REPLICA_NODE_OPTIONS='--import=<a module that starts the inspector profiler>' profiles each replica (--cpu-prof is refused in NODE_OPTIONS).
    ...(process.env['BENCH_REPLICA_NODE_OPTIONS'] ? { NODE_OPTIONS: process.env['BENCH_REPLICA_NODE_OPTIONS'] } : {}),
    ...(REPLICA_PROFILE_DIR
      ? { CPU_PROFILE_DIR: REPLICA_PROFILE_DIR, NODE_OPTIONS: `--import=${PROFILE_PRELOAD}` }
      : {}),
  };
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      startServiceProcess({
        app: 'trigger',
        readyTimeoutMs: 120_000,
        env: { ...env, TRIGGER_REPLICA_ID: `bench-${i}` },
      }),
    ),
  );
}

/** A trigger client calling as the api does (mutual TLS, identity `api`). */
async function apiTriggerClient(address: string) {
  const transport = new MutualTlsTransport(await testCertificates('api'));
  return createGrpcClient(triggerV1.TriggerServiceClient, triggerV1.TriggerServiceService, address, {
    defaultDeadlineMs: 30_000,
    transport,
    server: 'trigger',
  });
}

/**
 * Creates the first task once the gate can admit its executor: a task's executor is checked
 * against the gate at creation, and the gate knows the bench's runner from its catalog, which it
 * reads every CATALOG_REFRESH_MS.
 */
async function createWhenAdmitted(create: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await create();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function createTasks(port: number): Promise<number> {
  const client = await apiTriggerClient(`127.0.0.1:${port}`);
  const spec = JSON.stringify({ trigger: { type: 'schedule', cron: '* * * * *' }, executor: EXECUTOR });
  const create = (i: number) =>
    client.rpc.createTask({
      tenantId: `tenant-${i % TENANTS}`,
      userId: 'bench',
      specJson: spec,
      requestId: `task-${i}`,
    });
  await createWhenAdmitted(() => create(0));
  const started = Date.now();
  let next = 1;
  await Promise.all(
    Array.from({ length: CREATE_CONCURRENCY }, async () => {
      while (next < TASKS) {
        const i = next++;
        if (i % 1000 === 0) process.stdout.write(`  created ${i} tasks in ${Date.now() - started} ms\n`);
        await create(i);
      }
    }),
  );
  client.close();
  return Date.now() - started;
}

async function round(replicas: number, index: number): Promise<RoundResult> {
  const name = `bench_r${replicas}_${index}`;
  await postgres.createDatabase(name);
  const databaseUrl = postgres.url(name);
  const gate = await startToolGate({ databaseUrl, natsUrl: nats.url, redisUrl: redis.url });
  const processes = await startReplicas(databaseUrl, replicas, gate);
  calls = new Map();
  try {
    const createMs = await createTasks(Number(processes[0]!.ready['grpcPort']));
    // The first minute boundary at least 5 s after every task exists: all TASKS fire then.
    const burst = Math.ceil((Date.now() + 5_000) / 60_000) * 60_000;
    const burstIso = new Date(burst).toISOString();
    const ofBurst = () => [...calls.values()].filter((c) => c.scheduledAt === burstIso);
    const deadline = burst + 120_000;
    await new Promise((r) => setTimeout(r, burst - Date.now()));
    const pids = processes.map((p) => p.pid).filter((pid): pid is number => pid !== undefined);
    const pgPids = postgresPids();
    const cpuAtBurst = cpuMs(pids);
    const pgCpuAtBurst = cpuMs(pgPids);
    const natsPids = nats.pid === undefined ? [] : [nats.pid];
    const natsCpuAtBurst = cpuMs(natsPids);
    const gatePids = gate.process.pid === undefined ? [] : [gate.process.pid];
    const gateCpuAtBurst = cpuMs(gatePids);
    const executorCpuAtBurst = process.cpuUsage();
    const machineAtBurst = machineCpuMs();
    const atBurst = await pgActivity(databaseUrl);
    if (PG_STATEMENTS) await resetStatementStats(postgres);
    // SIGUSR2 starts the preload's profiler, the next one writes the profile.
    if (REPLICA_PROFILE_DIR) for (const pid of pids) process.kill(pid, 'SIGUSR2');
    while (ofBurst().length < TASKS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (REPLICA_PROFILE_DIR) for (const pid of pids) process.kill(pid, 'SIGUSR2');
    const cpuDrained = cpuMs(pids);
    const pgCpuDrained = cpuMs(postgresPids());
    const natsCpuDrained = cpuMs(natsPids);
    const gateCpuDrained = cpuMs(gatePids);
    const executorCpu = process.cpuUsage(executorCpuAtBurst);
    const machineDrained = machineCpuMs();
    const drained = await pgActivity(databaseUrl);
    while ((await runningFires(databaseUrl, burst)) > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const settledMs = Date.now() - burst;
    const cpuSettled = cpuMs(pids);
    const pgCpuSettled = cpuMs(postgresPids());
    await new Promise((r) => setTimeout(r, 1_000)); // late duplicates would show up here
    const lags = ofBurst()
      .map((c) => c.lagMs)
      .sort((a, b) => a - b);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const { rows } = await db.query<{ fires: string; tasks: string; succeeded: string }>(
      `SELECT count(*) AS fires, count(DISTINCT task_id) AS tasks, count(*) FILTER (WHERE status = 'succeeded') AS succeeded FROM trigger.fires WHERE scheduled_at = $1`,
      [new Date(burst)],
    );
    await db.end();
    const stored = rows[0]!;
    if (PG_STATEMENTS) {
      process.stdout.write(
        `  statements from the burst until 1 s after it drained (${replicas} replica(s)): total ms | calls | rows | statement\n`,
      );
      for (const s of await topStatements(postgres, name, 10))
        process.stdout.write(`  ${s.totalMs.toFixed(0)} | ${s.calls} | ${s.rows} | ${s.query}\n`);
    }
    if (Number(stored.fires) !== Number(stored.tasks))
      throw new Error(`the burst has ${stored.fires} fire rows for ${stored.tasks} tasks`);
    return {
      replicas,
      createMs,
      p50: percentile(lags, 50),
      p99: percentile(lags, 99),
      max: lags[lags.length - 1] ?? NaN,
      lost: TASKS - lags.length,
      unsettled: TASKS - Number(stored.succeeded),
      // Over every minute of the round, not only the burst.
      doubled: [...calls.values()].filter((c) => c.count > 1).length,
      commitsPerFire: (drained.commits - atBurst.commits) / TASKS,
      walFlushesPerFire: (drained.walFlushes - atBurst.walFlushes) / TASKS,
      replicaCpuMsPerFire: cpuUsedMs(cpuAtBurst, cpuDrained) / TASKS,
      postgresCpuMsPerFire: cpuUsedMs(pgCpuAtBurst, pgCpuDrained) / TASKS,
      natsCpuMsPerFire: cpuUsedMs(natsCpuAtBurst, natsCpuDrained) / TASKS,
      executorCpuMsPerFire: (executorCpu.user + executorCpu.system) / 1_000 / TASKS,
      gateCpuMsPerFire: cpuUsedMs(gateCpuAtBurst, gateCpuDrained) / TASKS,
      coresBusy: (machineDrained.busy - machineAtBurst.busy) / Math.max(1, machineDrained.total - machineAtBurst.total),
      min: lags[0] ?? NaN,
      settledMs,
      replicaCpuMsPerSettledFire: cpuUsedMs(cpuAtBurst, cpuSettled) / TASKS,
      postgresCpuMsPerSettledFire: cpuUsedMs(pgCpuAtBurst, pgCpuSettled) / TASKS,
    };
  } finally {
    await Promise.all(processes.map((p) => p.stop(5_000)));
    await gate.process.stop(5_000);
  }
}

/** Event-to-executor latency: one event task, EVENTS events posted one after the other through PublishEvent. */
async function eventRound(): Promise<number[]> {
  await postgres.createDatabase('bench_events');
  const gate = await startToolGate({
    databaseUrl: postgres.url('bench_events'),
    natsUrl: nats.url,
    redisUrl: redis.url,
  });
  const [replica] = await startReplicas(postgres.url('bench_events'), 1, gate);
  const client = await apiTriggerClient(`127.0.0.1:${String(replica!.ready['grpcPort'])}`);
  try {
    const spec = JSON.stringify({
      trigger: { type: 'event', source: 'bench', eventType: 'tick', filter: 'n >= 0' },
      executor: EXECUTOR,
    });
    await createWhenAdmitted(() =>
      client.rpc.createTask({ tenantId: 'events', userId: 'bench', specJson: spec, requestId: 'events-task' }),
    );
    for (let i = 0; i < EVENTS; i++) {
      const eventId = `e-${i}`;
      const before = eventLatencies.length;
      published.set(eventId, Date.now());
      await client.rpc.publishEvent({
        tenantId: 'events',
        eventId,
        source: 'bench',
        type: 'tick',
        dataJson: JSON.stringify({ n: i }),
      });
      const deadline = Date.now() + 10_000;
      while (eventLatencies.length === before && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    }
    return [...eventLatencies].sort((a, b) => a - b);
  } finally {
    client.close();
    await replica!.stop(5_000);
    await gate.process.stop(5_000);
  }
}

try {
  const results: RoundResult[] = [];
  for (const replicas of REPLICA_COUNTS) {
    for (let i = 0; i < ROUNDS; i++) {
      const result = await round(replicas, i);
      results.push(result);
      process.stdout.write(
        `replicas=${replicas} round ${i + 1}: first ${result.min} ms, p50 ${result.p50} ms, p99 ${result.p99} ms, max ${result.max} ms, lost ${result.lost}, doubled ${result.doubled}, unsettled ${result.unsettled}; burst to drained: ${result.commitsPerFire.toFixed(3)} commits and ${result.walFlushesPerFire.toFixed(3)} WAL flushes per fire, CPU per fire: replicas ${result.replicaCpuMsPerFire.toFixed(3)} ms, PostgreSQL ${result.postgresCpuMsPerFire.toFixed(3)} ms, nats-server ${result.natsCpuMsPerFire.toFixed(3)} ms, executor (bench) ${result.executorCpuMsPerFire.toFixed(3)} ms, tool gate (orchestrator) ${result.gateCpuMsPerFire.toFixed(3)} ms; cores busy ${(100 * result.coresBusy).toFixed(0)}%; every outcome recorded after ${result.settledMs} ms, CPU per fire until then: replicas ${result.replicaCpuMsPerSettledFire.toFixed(3)} ms, PostgreSQL ${result.postgresCpuMsPerSettledFire.toFixed(3)} ms\n`,
      );
    }
  }
  process.stdout.write(
    `\n${TASKS} coinciding tasks, no-op custom executor, durable PostgreSQL; medians over ${ROUNDS} round(s)\n\n`,
  );
  process.stdout.write(
    '| replicas | fire lag p50 | p99 | max (= burst drained) | lost | doubled | commits / fire | WAL flushes / fire | CPU / fire: replicas | PostgreSQL | nats-server | executor | tool gate | cores busy | outcomes recorded after | CPU / fire until then: replicas | PostgreSQL | creating the tasks |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n',
  );
  for (const replicas of REPLICA_COUNTS) {
    const mine = results.filter((r) => r.replicas === replicas);
    const med = (pick: (r: RoundResult) => number) => Math.round(median(mine.map(pick)));
    const sum = (pick: (r: RoundResult) => number) => mine.reduce((n, r) => n + pick(r), 0);
    process.stdout.write(
      `| ${replicas} | ${med((r) => r.p50)} ms | ${med((r) => r.p99)} ms | ${med((r) => r.max)} ms | ${sum((r) => r.lost)} | ${sum((r) => r.doubled)} | ${median(mine.map((r) => r.commitsPerFire)).toFixed(3)} | ${median(mine.map((r) => r.walFlushesPerFire)).toFixed(3)} | ${median(mine.map((r) => r.replicaCpuMsPerFire)).toFixed(3)} ms | ${median(mine.map((r) => r.postgresCpuMsPerFire)).toFixed(3)} ms | ${median(mine.map((r) => r.natsCpuMsPerFire)).toFixed(3)} ms | ${median(mine.map((r) => r.executorCpuMsPerFire)).toFixed(3)} ms | ${median(mine.map((r) => r.gateCpuMsPerFire)).toFixed(3)} ms | ${(100 * median(mine.map((r) => r.coresBusy))).toFixed(0)}% | ${med((r) => r.settledMs)} ms | ${median(mine.map((r) => r.replicaCpuMsPerSettledFire)).toFixed(3)} ms | ${median(mine.map((r) => r.postgresCpuMsPerSettledFire)).toFixed(3)} ms | ${med((r) => r.createMs)} ms |\n`,
    );
  }
  if (EVENTS > 0) {
    const latencies = await eventRound();
    process.stdout.write(
      `\nevent -> executor (${latencies.length} of ${EVENTS} events, one replica, posted one at a time): p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms\n`,
    );
  }
  if (ORCH_TASKS > 0) {
    const r = await orchestratorDrainRound(
      { natsUrl: nats.url, redisUrl: redis.url, postgres },
      ORCH_TASKS,
      CREATE_CONCURRENCY,
    );
    process.stdout.write(
      `\norchestrator executor, ${r.tasks} coinciding tasks (whole platform, llm-sim model, one trigger replica, production admission): ` +
        `burst drained in ${r.drainMs} ms; executor called p50 ${r.startLagP50} ms / p99 ${r.startLagP99} ms after the scheduled time; ` +
        `run finished p50 ${r.settleP50} ms / p99 ${r.settleP99} ms; not succeeded ${r.notSucceeded} (${r.statuses}), doubled ${r.doubled}\n`,
    );
  }
} finally {
  await runner.stop(1_000);
  await nc.drain();
  await redis.stop();
  await postgres.stop();
  await nats.stop();
}
