// A 2-step turn end to end through the HTTP API (the model asks for `calculator`, then answers),
// with llm-sim answering instantly and every service its own process on private NATS, Postgres
// and Redis: latency at concurrency 1 (cold first turn, then warm), sustained throughput at
// concurrency 64, and CPU and memory per process. Figures are medians over rounds.
// PostgreSQL runs durable (fsync, synchronous_commit, full_page_writes on) unless BENCH_POSTGRES=fast.
// Run: npx nx run bench-turn:bench   (env: ROUNDS, N1, N64, CONCURRENCY, WARMUP, RAMP, BENCH_POSTGRES)
// BREAKDOWN=1 adds where the time goes: each phase of a turn per load window (from the services'
// spans) and each service's event-loop delay and GC pauses (README: "Where the time goes").
import {
  closedLoop,
  cpuCount,
  describeDutySkips,
  dutySkips,
  type DutyCounters,
  type DutySkips,
  intEnv,
  parseDuties,
  postgresDurabilityFromEnv,
  setModelLatency,
  startBenchPlatform,
  startSkeleton,
  type Skeleton,
  TimeBreakdown,
  type BenchPlatform,
  type LoadResult,
  type PlatformProcess,
  type ProcessSample,
} from '@platform/bench-kit';
import { StatementWindows } from './statement-windows.js';
import { median, percentile, PLATFORM_APPS } from '@platform/testing';
import { openWindowLabel, runOpenLoop } from './open-loop-phase.js';

const ROUNDS = intEnv('ROUNDS', 3);
const N1 = intEnv('N1', 300);
const N64 = intEnv('N64', 2_000);
const CONCURRENCY = intEnv('CONCURRENCY', 64);
const WARMUP = intEnv('WARMUP', 200);
/** Unmeasured turns at full concurrency before each measured phase: sustained means steady state. */
const RAMP = intEnv('RAMP', 256);
type Measured = PlatformProcess | 'bench driver';
const MEASURED: Measured[] = [...PLATFORM_APPS, 'postgres', 'nats-server', 'redis-server', 'bench driver'];

const POSTGRES = postgresDurabilityFromEnv();
/** `closed` (default): latency at concurrency 1 and throughput at CONCURRENCY; `open`: fixed arrival rates. */
const MODE = process.env['MODE'] ?? 'closed';
if (MODE !== 'closed' && MODE !== 'open') throw new Error(`MODE must be 'closed' or 'open' (got '${MODE}')`);

function fractionsEnv(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined) return fallback;
  if (raw.trim() === '') return [];
  const values = raw.split(',').map(Number);
  if (values.some((v) => !Number.isFinite(v) || v <= 0 || v > 2))
    throw new Error(`${name} must be a comma-separated list of fractions in (0, 2] (got '${raw}')`);
  return values;
}

/** `BREAKDOWN=1`: where the time goes (phases per turn, event-loop delay, GC) per load window. */
const BREAKDOWN = ['1', 'true'].includes(process.env['BREAKDOWN'] ?? '');
/** `PG_STATEMENTS=1`: PostgreSQL's statements and write commits per turn in the concurrency-64 phases. */
const PG_STATEMENTS = ['1', 'true'].includes(process.env['PG_STATEMENTS'] ?? '');
/**
 * `BENCH_TARGET`: `platform` (default), `floor`: the floor of the platform's design (the same
 * processes and exchanges per turn, no platform code; bench/peers README), or `floor-duties`: the
 * floor doing the product's duties too (`FLOOR_DUTIES`, all by default); the floors in open mode only.
 */
const TARGET = process.env['BENCH_TARGET'] ?? 'platform';
if (TARGET !== 'platform' && TARGET !== 'floor' && TARGET !== 'floor-duties')
  throw new Error(`BENCH_TARGET must be 'platform', 'floor' or 'floor-duties' (got '${TARGET}')`);
if (TARGET !== 'platform' && (MODE !== 'open' || BREAKDOWN || PG_STATEMENTS))
  throw new Error(`BENCH_TARGET=${TARGET} runs in MODE=open, without BREAKDOWN or PG_STATEMENTS`);
const FLOOR_DUTIES = TARGET === 'floor-duties' ? parseDuties(process.env['FLOOR_DUTIES'] ?? 'all') : [];
/** `MODEL_LATENCY_MS`: llm-sim's delay before each answer (0: instant, the default). */
const MODEL_LATENCY_MS = intEnv('MODEL_LATENCY_MS', 0, 0);

let bench: BenchPlatform | undefined;
let breakdown: TimeBreakdown | undefined;
let skeleton: Skeleton | undefined;
try {
  breakdown = BREAKDOWN ? await TimeBreakdown.start({ sampleEvery: intEnv('BREAKDOWN_SAMPLE_EVERY', 1) }) : undefined;
  bench = await startBenchPlatform({
    durability: POSTGRES,
    statementStats: PG_STATEMENTS,
    dutyCounters: true,
    ...(breakdown ? { env: breakdown.env } : {}),
  });
  const running = bench;
  await setModelLatency(running.llmSimUrl, MODEL_LATENCY_MS);
  const statements = PG_STATEMENTS ? new StatementWindows(running.infra.postgres) : undefined;
  const tracing = breakdown;
  tracing?.attach(running.diagnosticsPorts());
  skeleton = TARGET === 'platform' ? undefined : await startSkeleton(running, { duties: FLOOR_DUTIES });
  const floor = skeleton;
  const turn = (): Promise<void> => (floor ? floor.turn() : tracing ? running.turn(tracing.headers()) : running.turn());
  const measured = <T extends { latenciesMs: number[] }>(label: string, load: () => Promise<T>): Promise<T> =>
    tracing ? tracing.window(label, load, (r) => r.latenciesMs.length) : load();

  const samples = async (): Promise<Map<Measured, ProcessSample>> => {
    const platform = await running.sample();
    const self = process.cpuUsage();
    return new Map<Measured, ProcessSample>([
      ...platform,
      ['bench driver', { cpuMs: (self.user + self.system) / 1000, rssMiB: process.memoryUsage().rss / 2 ** 20 }],
    ]);
  };

  const cold = await closedLoop(turn, 1, 1);
  if (cold.errors) throw new Error(`the first turn failed: ${cold.firstError}`);
  await closedLoop(turn, 1, WARMUP);
  if (MODE === 'open') {
    const floorName = FLOOR_DUTIES.length
      ? `the floor of the platform's design doing ${FLOOR_DUTIES.join(', ')}`
      : "the floor of the platform's design (no platform code)";
    out(`${floor ? floorName : 'the platform'}; PostgreSQL ${POSTGRES}; ${cpuCount()} CPUs`);
    await runOpenLoop(
      turn,
      {
        rounds: ROUNDS,
        concurrency: CONCURRENCY,
        ramp: RAMP,
        saturationTurns: N64,
        fractions: fractionsEnv('OPEN_FRACTIONS', [0.25, 0.5, 0.75]),
        seconds: intEnv('OPEN_SECONDS', 20),
        p99TargetMs: intEnv('P99_TARGET_MS', 100),
        kneeFractions: fractionsEnv('KNEE_FRACTIONS', [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]),
        measured,
      },
      (line) => process.stderr.write(`${line}\n`),
    );
    tracing?.print(referenceWindow(fractionsEnv('OPEN_FRACTIONS', [0.25, 0.5, 0.75])), out);
  } else {
    const sequential: Phase[] = [];
    const concurrent: Phase[] = [];
    const ramps: LoadResult[] = [];
    // The duties a phase's turns skipped, counted once the turns it handed to memory are taken
    // (the floors run in open mode only: here it is always the platform).
    const skipsOf = async (before: DutyCounters, turns: number): Promise<DutySkips> => {
      await running.drainIngestion();
      return dutySkips(before, await running.duties(), turns);
    };
    const duties = (): Promise<DutyCounters> => running.duties();
    for (let round = 1; round <= ROUNDS; round++) {
      const dutiesSequential = await duties();
      const beforeSequential = await samples();
      const single = await measured('concurrency 1', () => closedLoop(turn, 1, N1));
      const afterSequential = await samples();
      sequential.push({
        ...single,
        cpu: new Map(MEASURED.map((m) => [m, afterSequential.get(m)!.cpuMs - beforeSequential.get(m)!.cpuMs])),
        skips: await skipsOf(dutiesSequential, single.latenciesMs.length),
      });
      ramps.push(await closedLoop(turn, CONCURRENCY, RAMP));
      await running.drainIngestion();
      await statements?.begin();
      const dutiesBefore = await duties();
      const before = await samples();
      const result = await measured(`concurrency ${CONCURRENCY}`, () => closedLoop(turn, CONCURRENCY, N64));
      const after = await samples();
      await statements?.end(result.latenciesMs.length);
      const skips = await skipsOf(dutiesBefore, result.latenciesMs.length);
      concurrent.push({
        ...result,
        cpu: new Map(MEASURED.map((m) => [m, after.get(m)!.cpuMs - before.get(m)!.cpuMs])),
        skips,
      });
      process.stderr.write(`round ${round}/${ROUNDS} done; concurrency ${CONCURRENCY}: ${describeDutySkips(skips)}\n`);
    }
    const memory = await samples();
    report(cold, sequential, concurrent, ramps, memory);
    if (statements) for (const line of statements.report(`concurrency ${CONCURRENCY}`)) out(line);
    tracing?.print(`concurrency ${CONCURRENCY}`, out);
  }
} finally {
  await skeleton?.stop();
  await bench?.stop();
  await breakdown?.stop();
}

/** The open-loop window whose slowest turns the breakdown takes apart: 50% of saturation, or the nearest rate offered. */
function referenceWindow(fractions: number[]): string {
  const nearest = [...fractions].sort((a, b) => Math.abs(a - 0.5) - Math.abs(b - 0.5))[0] ?? 0.5;
  return openWindowLabel(nearest);
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}

/** A measured phase of a round: its turns, the CPU each process spent, and the duties its turns skipped. */
type Phase = LoadResult & { cpu: Map<Measured, number>; skips: DutySkips };

/**
 * Headline figures come from valid phases only (at most 5% of their turns skipped a duty); when no
 * round's phase is valid, from all of them, and the table says so.
 */
function validOnly(phases: Phase[]): { phases: Phase[]; note: string } {
  const valid = phases.filter((p) => p.skips.valid);
  if (valid.length === phases.length) return { phases, note: '' };
  if (valid.length === 0) return { phases, note: ' **INVALID: every round skipped more than 5% of its duties**' };
  return { phases: valid, note: ` (from the ${valid.length} valid rounds of ${phases.length})` };
}

function report(
  cold: LoadResult,
  allSequential: Phase[],
  allConcurrent: Phase[],
  ramps: LoadResult[],
  memory: Map<Measured, ProcessSample>,
): void {
  const { phases: sequential, note: note1 } = validOnly(allSequential);
  const { phases: concurrent, note: noteC } = validOnly(allConcurrent);
  const p50s = sequential.map((r) => median(r.latenciesMs));
  const p99 = (values: readonly number[]): number =>
    percentile(
      [...values].sort((a, b) => a - b),
      99,
    );
  const p99s1 = sequential.map((r) => p99(r.latenciesMs));
  const throughputs = concurrent.map((r) => (r.latenciesMs.length / r.elapsedMs) * 1000);
  const p99s = concurrent.map((r) => p99(r.latenciesMs));
  const p50sC = concurrent.map((r) => median(r.latenciesMs));
  const errors = [...allSequential, ...ramps, ...allConcurrent].reduce((sum, r) => sum + r.errors, 0);
  const firstError = [...allSequential, ...ramps, ...allConcurrent].find((r) => r.firstError)?.firstError;
  out(
    `\n2-step turn through the HTTP API (calculator), llm-sim ${MODEL_LATENCY_MS ? `answering after ${MODEL_LATENCY_MS} ms` : 'instant'}; PostgreSQL ${POSTGRES}; ${ROUNDS} rounds, medians; ${cpuCount()} CPUs`,
  );
  out('| measure | value | target |');
  out('|---|---|---|');
  out(`| cold first turn | ${fmt(cold.latenciesMs[0] ?? NaN)} ms | - |`);
  const skipShares = (phases: Phase[]) => phases.map((p) => `${fmt(100 * p.skips.share)}%`).join(', ');
  out(`| turns that skipped a duty at concurrency 1, per round | ${skipShares(allSequential)}${note1} | <= 5% |`);
  out(
    `| turns that skipped a duty at concurrency ${CONCURRENCY}, per round | ${skipShares(allConcurrent)}${noteC} | <= 5% |`,
  );
  out(`| p50 at concurrency 1 (warm) | ${fmt(median(p50s))} ms | <= 15 ms |`);
  out(`| p99 at concurrency 1 | ${fmt(median(p99s1))} ms | - |`);
  out(`| throughput at concurrency ${CONCURRENCY} | ${fmt(median(throughputs), 0)} turns/s | >= 200 |`);
  out(`| p50 / p99 at concurrency ${CONCURRENCY} | ${fmt(median(p50sC))} / ${fmt(median(p99s))} ms | p99 <= 250 ms |`);
  const maxes = concurrent.map((r) => Math.max(...r.latenciesMs));
  out(`| slowest turn at concurrency ${CONCURRENCY} | ${fmt(median(maxes))} ms | - |`);
  out(`| errors | ${errors}${firstError ? ` (first: ${firstError})` : ''} | 0 |`);
  out(`\nPer process during the concurrency-${CONCURRENCY} phase, and during the concurrency-1 phase (median round):`);
  out(
    `| process | CPU ms per turn | share of one core | RSS at end (MiB) | concurrency 1: CPU ms per turn | concurrency 1: share of one core |`,
  );
  out('|---|---|---|---|---|---|');
  const perTurn = (phase: typeof concurrent, m: Measured) =>
    median(phase.map((r) => r.cpu.get(m)! / r.latenciesMs.length));
  const share = (phase: typeof concurrent, m: Measured) => median(phase.map((r) => r.cpu.get(m)! / r.elapsedMs));
  for (const m of MEASURED) {
    const rss = memory.get(m)!.rssMiB;
    out(
      `| ${m} | ${fmt(perTurn(concurrent, m), 2)} | ${fmt(share(concurrent, m) * 100, 0)}% | ${Number.isNaN(rss) ? '-' : fmt(rss, 0)} | ${fmt(perTurn(sequential, m), 2)} | ${fmt(share(sequential, m) * 100, 0)}% |`,
    );
  }
  const total = (phase: typeof concurrent) =>
    median(phase.map((r) => [...r.cpu.values()].reduce((a, b) => a + b, 0) / r.elapsedMs));
  out(
    `| all of the above | | ${fmt(total(concurrent) * 100, 0)}% of one core (${cpuCount()} cores) | | | ${fmt(total(sequential) * 100, 0)}% |`,
  );
}
