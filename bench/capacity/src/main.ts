// The platform where real agents live (issue 40): turns offered open-loop to hold IN_FLIGHT turns
// in flight at multi-second model calls (llm-sim: log-normal latency per call, answers streamed at
// a token rate), then WAITING runs held on a slow model. Reports sustained turns/s, overhead (turn
// time minus model time) as a share of model time, CPU per turn and memory per in-flight turn per
// process, the shared tier's rates, and the share of turns that skipped a duty (a phase where more
// than 5% did is marked invalid).
// Run: npx nx run bench-capacity:bench   (env: see bench/capacity/README.md)
import {
  describeDutySkips,
  dutySkips,
  FailureTally,
  intEnv,
  postgresDurabilityFromEnv,
  readSharedTierCounters,
  sharedTierRates,
  startBenchPlatform,
  type BenchPlatform,
  type PlatformProcess,
  type ProcessSample,
} from '@platform/bench-kit';
import { loadavg } from 'node:os';
import { percentile } from '@platform/testing';
import { modelTimes, offerTurns } from './in-flight-phase.js';
import { streamedTurn } from './streamed-turn.js';
import { ListenQueueSampler } from './listen-queues.js';
import { breakdownRates, readTierBreakdown } from './tier-breakdown.js';

const IN_FLIGHT = intEnv('IN_FLIGHT', 1_000);
const MODEL_MEDIAN_MS = intEnv('MODEL_MEDIAN_MS', 2_500);
const MODEL_P99_MS = intEnv('MODEL_P99_MS', 8_000);
const TOKENS_PER_SECOND = intEnv('TOKENS_PER_SECOND', 40);
const DURATION_S = intEnv('DURATION_S', 120);
const WAITING = intEnv('WAITING', 10_000, 0);
const WAIT_MS = intEnv('WAIT_MS', 60_000);
/** Words of the scenario's streamed answer (llm-sim streams one chunk per word). */
const ANSWER_WORDS = 66;

/** Log-normal mean from median and p99 (p99 = median * e^(2.326 sigma)). */
function lognormalMean(median: number, p99: number): number {
  const sigma = Math.log(p99 / median) / 2.326;
  return median * Math.exp((sigma * sigma) / 2);
}
/** A turn's expected time: two model calls, plus the answer streamed at the token rate. */
const expectedTurnMs = 2 * lognormalMean(MODEL_MEDIAN_MS, MODEL_P99_MS) + (1000 * ANSWER_WORDS) / TOKENS_PER_SECOND;
/** Little's law: the arrival rate that holds IN_FLIGHT in flight (RATE overrides it). */
const RATE = process.env['RATE'] ? Number(process.env['RATE']) : IN_FLIGHT / (expectedTurnMs / 1000);

async function putLatency(llmSimUrl: string, setting: object): Promise<void> {
  const response = await fetch(`${llmSimUrl}/_sim/latency`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(setting),
  });
  if (!response.ok) throw new Error(`llm-sim refused the latency setting: HTTP ${response.status}`);
}

const cpuDelta = (a: Map<PlatformProcess, ProcessSample>, b: Map<PlatformProcess, ProcessSample>) =>
  new Map([...b].map(([name, s]) => [name, s.cpuMs - (a.get(name)?.cpuMs ?? 0)] as const));

function processTable(
  title: string,
  rows: Map<PlatformProcess, { cpu: number; memory: number }>,
  units: { cpu: string; memory: string },
): string {
  let out = `\n${title}\n\n| process | ${units.cpu} | ${units.memory} |\n|---|---|---|\n`;
  let cpu = 0;
  for (const [name, row] of rows) {
    cpu += row.cpu;
    out += `| ${name} | ${row.cpu.toFixed(3)} | ${Number.isNaN(row.memory) ? '—' : row.memory.toFixed(3)} |\n`;
  }
  return `${out}| **all** | **${cpu.toFixed(3)}** | |\n`;
}

async function inFlightPhase(bench: BenchPlatform): Promise<void> {
  await putLatency(bench.llmSimUrl, {
    distribution: { medianMs: MODEL_MEDIAN_MS, p99Ms: MODEL_P99_MS, seed: 1 },
    tokensPerSecond: TOKENS_PER_SECOND,
  });
  const endpoints = tierEndpoints(bench);
  const idle = await bench.sample();
  const dutiesBefore = await bench.duties();
  const tierBefore = await readSharedTierCounters(endpoints);
  const breakdownBefore = await readTierBreakdown(endpoints);
  let peak = idle;
  const peakSampler = setInterval(() => void bench.sample().then((s) => (peak = s)), 5_000);
  const queues = new ListenQueueSampler(listeners(bench));
  const load = await offerTurns(
    { apiUrl: bench.platform.apiUrl, token: bench.token },
    { prefix: 'cap', rate: RATE, durationMs: DURATION_S * 1000 },
  );
  clearInterval(peakSampler);
  const queueReport = await queues.stop();
  const tierAfter = await readSharedTierCounters(endpoints);
  const breakdownAfter = await readTierBreakdown(endpoints);
  const after = await bench.sample();
  await bench.drainIngestion();
  const dutiesAfter = await bench.duties();
  const model = await modelTimes(bench.llmSimUrl);
  const overheads: number[] = [];
  const shares: number[] = [];
  for (const turn of load.turns) {
    const modelMs = model.get(turn.tag)?.ms;
    if (modelMs === undefined) continue;
    overheads.push(turn.ms - modelMs);
    shares.push((turn.ms - modelMs) / modelMs);
  }
  overheads.sort((a, b) => a - b);
  shares.sort((a, b) => a - b);
  const answered = load.turns.length;
  // Turns the platform ran to their end (llm-sim answered both of their model calls), whether or
  // not their client was still there to read the answer: the work the CPU figures divide.
  const ran = Math.max(answered, [...model].filter(([tag, t]) => tag.startsWith('cap-') && t.calls >= 2).length);
  const skipped = dutySkips(dutiesBefore, dutiesAfter, answered);
  const inFlight = load.inFlightSamples.slice(Math.floor(load.inFlightSamples.length / 2));
  const meanInFlight = inFlight.reduce((a, b) => a + b, 0) / Math.max(1, inFlight.length);
  const rates = sharedTierRates(tierBefore, tierAfter);
  const cpu = cpuDelta(idle, after);
  process.stdout.write(
    `\n## In flight: offered ${RATE.toFixed(1)} turns/s for ${DURATION_S} s (target ${IN_FLIGHT} in flight; model median ${MODEL_MEDIAN_MS} ms, p99 ${MODEL_P99_MS} ms, ${TOKENS_PER_SECOND} tokens/s)\n\n` +
      `- ${describeDutySkips(skipped)}\n` +
      `- answered ${answered}, failed ${load.errors} (${load.failures.toString()}); sustained ${((1000 * answered) / load.elapsedMs).toFixed(1)} turns/s; the platform ran ${ran} turns to their second model call\n` +
      `- in flight (second half of the offering): mean ${meanInFlight.toFixed(0)}, max ${Math.max(0, ...inFlight)}\n` +
      `- turn time p50 ${percentile(
        load.turns.map((t) => t.ms).sort((a, b) => a - b),
        50,
      ).toFixed(
        0,
      )} ms; overhead (turn time minus model time) p50 ${percentile(overheads, 50).toFixed(0)} ms, p99 ${percentile(overheads, 99).toFixed(0)} ms; as a share of model time p50 ${(100 * percentile(shares, 50)).toFixed(2)}%, p99 ${(100 * percentile(shares, 99)).toFixed(2)}%\n` +
      `- shared tier: PostgreSQL ${rates.postgresCommitsPerSecond.toFixed(0)} commits/s, NATS ${rates.natsMessagesPerSecond.toFixed(0)} messages/s, Redis ${rates.redisCommandsPerSecond.toFixed(0)} commands/s; the driver sent late by at most ${load.worstSendLagMs.toFixed(0)} ms\n` +
      breakdownRates(breakdownBefore, breakdownAfter, (tierAfter.at - tierBefore.at) / 1000) +
      `- load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n` +
      `- ${queueReport}\n`,
  );
  const rows = new Map(
    [...cpu].map(([name, ms]) => {
      const rss = (peak.get(name)?.rssMiB ?? NaN) - (idle.get(name)?.rssMiB ?? NaN);
      return [name, { cpu: ms / Math.max(1, ran), memory: (1024 * rss) / Math.max(1, meanInFlight) }] as const;
    }),
  );
  process.stdout.write(
    processTable('Per process (CPU divided by the turns the platform ran)', rows, {
      cpu: 'CPU ms / turn',
      memory: 'KiB RSS / turn in flight',
    }),
  );
}

async function waitingPhase(bench: BenchPlatform): Promise<void> {
  await putLatency(bench.llmSimUrl, { delayMs: WAIT_MS });
  const endpoints = tierEndpoints(bench);
  const idle = await bench.sample();
  const target = { apiUrl: bench.platform.apiUrl, token: bench.token };
  const abort = new AbortController();
  const failures = new FailureTally();
  const queues = new ListenQueueSampler(listeners(bench));
  const sent = Date.now();
  const turns = Array.from({ length: WAITING }, (_, i) =>
    streamedTurn(target, `wait-${i}`, abort.signal).catch((err: unknown) => failures.add(err)),
  );
  // Every run has reached the model (llm-sim holds each call WAIT_MS) once the ramp is over.
  const window = Math.max(10_000, Math.floor(WAIT_MS / 3));
  await new Promise((r) => setTimeout(r, Math.min(WAIT_MS / 3, 20_000)));
  const t0 = await bench.sample();
  const tier0 = await readSharedTierCounters(endpoints);
  const breakdown0 = await readTierBreakdown(endpoints);
  await new Promise((r) => setTimeout(r, window / 2));
  const t1 = await bench.sample();
  await new Promise((r) => setTimeout(r, window / 2));
  const t2 = await bench.sample();
  const tier2 = await readSharedTierCounters(endpoints);
  const breakdown2 = await readTierBreakdown(endpoints);
  const rates = sharedTierRates(tier0, tier2);
  await putLatency(bench.llmSimUrl, { delayMs: 0 });
  await Promise.all(turns);
  const queueReport = await queues.stop();
  const firstHalf = cpuDelta(t0, t1);
  const secondHalf = cpuDelta(t1, t2);
  const runSeconds = (WAITING * window) / 2 / 1000;
  process.stdout.write(
    `\n## Waiting: ${WAITING} runs on a model that answers after ${WAIT_MS} ms\n\n` +
      `- failed ${failures.total} (${failures.toString()}); all answered ${((Date.now() - sent) / 1000).toFixed(0)} s after the first was sent\n` +
      `- while waiting: PostgreSQL ${rates.postgresCommitsPerSecond.toFixed(1)} commits/s, NATS ${rates.natsMessagesPerSecond.toFixed(1)} messages/s, Redis ${rates.redisCommandsPerSecond.toFixed(1)} commands/s\n` +
      breakdownRates(breakdown0, breakdown2, (tier2.at - tier0.at) / 1000) +
      `- load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n` +
      `- ${queueReport}\n`,
  );
  const rows = new Map(
    [...secondHalf].map(([name, ms]) => {
      const rss = (t2.get(name)?.rssMiB ?? NaN) - (idle.get(name)?.rssMiB ?? NaN);
      return [name, { cpu: (1000 * ms) / runSeconds, memory: (1024 * rss) / WAITING }] as const;
    }),
  );
  process.stdout.write(
    processTable('Per process, second half of the wait', rows, {
      cpu: 'CPU µs / waiting run-second',
      memory: 'KiB RSS / waiting run',
    }),
  );
  const first = [...firstHalf.values()].reduce((a, b) => a + b, 0);
  const second = [...secondHalf.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(
    `\nCPU of the wait's first half against its second: ${first.toFixed(0)} ms and ${second.toFixed(0)} ms (a cost that grows with wait time would show as a larger second half)\n`,
  );
}

/** The listening ports whose accept queues the phases watch: the api's (the driver's connections) and llm-sim's (the orchestrator's). */
function listeners(bench: BenchPlatform): Map<string, number> {
  return new Map([
    ['api', Number(new URL(bench.platform.apiUrl).port)],
    ['llm-sim', Number(new URL(bench.llmSimUrl).port)],
  ]);
}

function tierEndpoints(bench: BenchPlatform) {
  return {
    postgresUrl: bench.infra.descriptor.postgresUrl,
    redisUrl: bench.infra.descriptor.redisUrl,
    natsMonitorUrl: bench.infra.nats.monitorUrl!,
  };
}

/** `CPU_PROFILE_DIR`: the api and the orchestrator write V8 CPU profiles there when they stop (read them with `--cpu-prof`'s tools). */
const CPU_PROFILE_DIR = process.env['CPU_PROFILE_DIR'];
const profiled: Record<string, string> = CPU_PROFILE_DIR
  ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROFILE_DIR}` }
  : {};

// A waiting run's model call takes WAIT_MS: the orchestrator's model timeout (60 s by default, the
// longest llm-sim holds a call) must outlast it, or every waiting run times its call out just as
// the model answers and tries again; its turn timeout and the api's wait follow.
const LLM_TIMEOUT_MS = Math.max(60_000, WAIT_MS + 30_000);
const TURN_TIMEOUT_MS = Math.max(120_000, LLM_TIMEOUT_MS + 60_000);

const bench = await startBenchPlatform({
  durability: postgresDurabilityFromEnv(),
  natsMonitor: true,
  dutyCounters: true,
  appEnv: {
    api: { ...profiled, TURN_WAIT_MS: String(TURN_TIMEOUT_MS + 30_000) },
    orchestrator: {
      ...profiled,
      LLM_TIMEOUT_MS: String(LLM_TIMEOUT_MS),
      TURN_TIMEOUT_MS: String(TURN_TIMEOUT_MS),
      // Admission sized for the phase with the most turns at once.
      MAX_CONCURRENT_TURNS: String(Math.ceil(1.5 * Math.max(IN_FLIGHT, WAITING))),
    },
  },
});
try {
  process.stdout.write(
    `# bench/capacity, ${new Date().toISOString()}, PostgreSQL ${bench.durability}, Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  // One turn first: the scenario, the tool and the stream work before any load.
  await streamedTurn({ apiUrl: bench.platform.apiUrl, token: bench.token }, 'warm-up');
  await inFlightPhase(bench);
  if (WAITING > 0) await waitingPhase(bench);
} finally {
  await bench.stop();
}
