// Measures a no-op tool call orchestrator -> runner -> orchestrator (ToolClient over NATS to a
// serveRunner runner in another process) against a bare NATS request-reply between the same two
// processes, so the difference is the platform's tool protocol and SDK, not NATS or the machine.
// Run: npx nx run bench-tool-dispatch:bench
//   (env: N, ROUNDS, BLOCK, WARMUP, CONCURRENCY, CONCURRENT_N, CONCURRENT_ROUNDS, TRACING=1, BENCH_TIMEOUT_MS)
import { spawn } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { TOOL_PROTOCOL_VERSION, ToolCallHeader } from '@platform/contracts';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import {
  ManagedProcess,
  median,
  percentile,
  startNatsServer,
  workspaceRoot,
  type NatsServerHandle,
} from '@platform/testing';
import { ToolCatalog, ToolClient } from '@platform/tool-sdk';
import {
  benchEnv,
  CPU_SUBJECT,
  ECHO_SUBJECT,
  libraryBuild,
  NOOP_TOOL,
  READY_PREFIX,
  TELEMETRY_IMPORT,
  tracingActive,
  type RunnerReady,
} from './protocol.js';
import { callIdFor, noopArguments, turnScope } from './noop-tool.js';

function intEnv(name: string, fallback: number, max: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new Error(`${name} must be an integer from 1 to ${max} (got '${raw}')`);
  return value;
}

const N = intEnv('N', 5_000, 200_000);
const ROUNDS = intEnv('ROUNDS', 5, 50);
const BLOCK = Math.min(N, intEnv('BLOCK', 500, 200_000));
const WARMUP = intEnv('WARMUP', 2_000, 100_000);
const CONCURRENCY = intEnv('CONCURRENCY', 16, 256);
const CONCURRENT_N = intEnv('CONCURRENT_N', 10_000, 1_000_000);
const CONCURRENT_ROUNDS = intEnv('CONCURRENT_ROUNDS', 3, 50);
const BENCH_TIMEOUT_MS = intEnv('BENCH_TIMEOUT_MS', 15 * 60_000, 24 * 60 * 60_000);
const TRACING = process.env['TRACING'] === '1';
const TARGET_RATIO = 1.5;
/** The deadline the orchestrator would pass (the turn's), and the bare request's timeout. */
const CALL_TIMEOUT_MS = 10_000;

type Kind = 'tool' | 'bare';
const KINDS: readonly Kind[] = ['tool', 'bare'];
const LABEL: Record<Kind, string> = { tool: 'tool (noop)', bare: 'bare NATS' };

/** CPU time (user + system, µs) used so far by the bench process and by the runner process. */
interface CpuTimes {
  bench: number;
  runner: number;
}
type CpuProbe = () => Promise<CpuTimes>;

interface Sequential {
  p50: number;
  p99: number;
  perRound: number[];
  /** CPU µs per call in each process, over all measured blocks. */
  cpuPerCall: CpuTimes;
}
interface Concurrent {
  perSecond: number;
  p50: number;
  p99: number;
  perRound: number[];
}

async function runBenchmark(): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  let cleaning: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaning ??= (async () => {
      for (const close of cleanups.reverse())
        await close().catch((err: unknown) => process.stderr.write(`cleanup: ${String(err)}\n`));
    })());
  const abort = (why: string, code: number): void => {
    process.stderr.write(`${why}; cleaning up\n`);
    void cleanup().finally(() => process.exit(code));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => abort(`got ${signal}`, 130));
  const timeout = setTimeout(
    () => abort(`not finished within BENCH_TIMEOUT_MS=${BENCH_TIMEOUT_MS}`, 1),
    BENCH_TIMEOUT_MS,
  );
  timeout.unref();
  let runner: ManagedProcess | undefined;

  try {
    const logger = createLogger({ service: 'bench-tool-dispatch', level: process.env['LOG_LEVEL'] ?? 'warn' });
    const server: NatsServerHandle = await startNatsServer();
    cleanups.push(() => server.stop());

    // The runner runs with the bench's own node flags: the same module resolution (sources through
    // tsx, or built dist), the same telemetry entry, and `--cpu-prof` when the bench is profiled.
    const nodeFlags = process.execArgv.filter((flag) => !flag.startsWith('--inspect'));
    if (!nodeFlags.some((flag) => flag === 'tsx' || flag.endsWith('=tsx'))) nodeFlags.push('--import', 'tsx');
    const runnerArgs = [...nodeFlags, fileURLToPath(new URL('./runner-process.ts', import.meta.url))];
    const runnerProcess = ManagedProcess.start('bench-runner', process.execPath, runnerArgs, {
      cwd: workspaceRoot(),
      env: benchEnv({ NATS_URL: server.url, BENCH_PARENT_PID: String(process.pid), OTEL_SERVICE_NAME: 'bench-runner' }),
    });
    runner = runnerProcess;
    cleanups.push(() => runnerProcess.stop('SIGTERM', 5_000));
    await runnerProcess.waitForOutput((output) => output.includes(READY_PREFIX), 60_000);
    const readyLine = runnerProcess.recentOutput.split('\n').find((line) => line.startsWith(READY_PREFIX)) ?? '';
    const ready = JSON.parse(readyLine.slice(READY_PREFIX.length)) as RunnerReady;

    const nc: NatsConnection = await connectNats({ servers: server.url, name: 'bench-orchestrator', logger });
    cleanups.push(() => nc.close());
    // Discovery as the orchestrator does it, but no background refresh: its $SRV.INFO rounds would be noise.
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300, refreshIntervalMs: 24 * 60 * 60_000 });
    cleanups.push(async () => catalog.stop());
    await catalog.start();
    if (catalog.lookup(NOOP_TOOL).state !== 'online') throw new Error(`the catalog did not discover '${NOOP_TOOL}'`);
    const client = new ToolClient({ nc, logger });

    // What one turn of the orchestrator carries into every tool call (RunnerToolPort.run).
    const { tenantId, conversationId, runId } = turnScope;
    const turn = new AbortController();
    const args = noopArguments;
    let seq = 0;
    const callId = (): string => callIdFor(seq++);

    const callTool = async (): Promise<void> => {
      const found = catalog.lookup(NOOP_TOOL);
      if (found.state !== 'online') throw new Error(`'${NOOP_TOOL}' went offline`);
      const response = await client.call({
        toolName: NOOP_TOOL,
        arguments: args,
        callId: callId(),
        tenantId,
        conversationId,
        runId,
        deadlineAt: Date.now() + CALL_TIMEOUT_MS,
        signal: turn.signal,
        sideEffect: found.entry.sideEffect,
        dedupe: found.entry.dedupe,
      });
      if (response.status !== 'success') throw new Error(`'${NOOP_TOOL}' answered ${JSON.stringify(response)}`);
    };

    // The bare request carries as many bytes as the tool request's headers and body together.
    const toolBody = JSON.stringify({ arguments: args });
    const headerPairs: [string, string][] = [
      [ToolCallHeader.callId, callId()],
      [ToolCallHeader.tenant, tenantId],
      [ToolCallHeader.conversation, conversationId],
      [ToolCallHeader.run, runId],
      [ToolCallHeader.deadline, String(Date.now())],
      [ToolCallHeader.protocol, TOOL_PROTOCOL_VERSION],
      ...(TRACING ? ([['traceparent', `00-${'0'.repeat(32)}-${'0'.repeat(16)}-01`]] as [string, string][]) : []),
    ];
    const headerBytes =
      'NATS/1.0\r\n\r\n'.length + headerPairs.reduce((sum, [k, v]) => sum + `${k}: ${v}\r\n`.length, 0);
    const barePayload = JSON.stringify({
      arguments: { text: 'x'.repeat(Math.max(0, headerBytes + toolBody.length - 24)) },
    });
    const callBare = async (): Promise<void> => {
      const reply = await nc.request(ECHO_SUBJECT, barePayload, { timeout: CALL_TIMEOUT_MS });
      if (reply.data.length !== barePayload.length)
        throw new Error(`echo answered ${reply.data.length} bytes, sent ${barePayload.length}`);
    };
    const call: Record<Kind, () => Promise<void>> = { tool: callTool, bare: callBare };
    const cpu: CpuProbe = async () => {
      const runnerCpu = (await nc.request(CPU_SUBJECT, '', { timeout: CALL_TIMEOUT_MS })).json<NodeJS.CpuUsage>();
      const own = process.cpuUsage();
      return { bench: own.user + own.system, runner: runnerCpu.user + runnerCpu.system };
    };

    // Warm-up of both paths, interleaved: JIT, the request inbox subscription, caches.
    for (let i = 0; i < WARMUP; i++) {
      await callTool();
      await callBare();
    }

    const sequential = await measureSequential(call, cpu);
    const concurrent = await measureConcurrent(call);
    printReport({
      ready,
      natsVersion: nc.info?.version ?? '?',
      toolBody,
      headerBytes,
      barePayload,
      sequential,
      concurrent,
    });
  } catch (error) {
    if (runner && !runner.isAlive)
      process.stderr.write(`the runner process is gone; its last output:\n${runner.recentOutput}\n`);
    throw error;
  } finally {
    clearTimeout(timeout);
    await cleanup();
  }
}

/** Concurrency 1: each round runs N calls of each kind in alternating blocks, so noise hits both alike. */
async function measureSequential(
  call: Record<Kind, () => Promise<void>>,
  cpu: CpuProbe,
): Promise<Record<Kind, Sequential>> {
  const all: Record<Kind, number[]> = { tool: [], bare: [] };
  const cpuUsed: Record<Kind, CpuTimes> = { tool: { bench: 0, runner: 0 }, bare: { bench: 0, runner: 0 } };
  const perRound: Record<Kind, number[]> = { tool: [], bare: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const samples: Record<Kind, number[]> = { tool: [], bare: [] };
    for (let block = 0; block * BLOCK < N; block++) {
      const size = Math.min(BLOCK, N - block * BLOCK);
      const order: readonly Kind[] = (round + block) % 2 === 0 ? KINDS : [...KINDS].reverse();
      for (const kind of order) {
        const fn = call[kind];
        const into = samples[kind];
        const before = await cpu();
        for (let i = 0; i < size; i++) {
          const started = performance.now();
          await fn();
          into.push(performance.now() - started);
        }
        const after = await cpu();
        cpuUsed[kind].bench += after.bench - before.bench;
        cpuUsed[kind].runner += after.runner - before.runner;
      }
    }
    for (const kind of KINDS) {
      perRound[kind].push(median(samples[kind]));
      all[kind].push(...samples[kind]);
    }
  }
  const summary = (kind: Kind): Sequential => {
    const sorted = all[kind].sort((a, b) => a - b);
    const calls = ROUNDS * N;
    const cpuPerCall = { bench: cpuUsed[kind].bench / calls, runner: cpuUsed[kind].runner / calls };
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), perRound: perRound[kind], cpuPerCall };
  };
  return { tool: summary('tool'), bare: summary('bare') };
}

/** CONCURRENCY callers in flight at once; each round runs both kinds, in alternating order. */
async function measureConcurrent(call: Record<Kind, () => Promise<void>>): Promise<Record<Kind, Concurrent>> {
  const latencies: Record<Kind, number[]> = { tool: [], bare: [] };
  const rates: Record<Kind, number[]> = { tool: [], bare: [] };
  for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
    for (const kind of round % 2 === 0 ? KINDS : [...KINDS].reverse()) {
      const fn = call[kind];
      const into = latencies[kind];
      let issued = 0;
      const worker = async (): Promise<void> => {
        while (issued < CONCURRENT_N) {
          issued++;
          const started = performance.now();
          await fn();
          into.push(performance.now() - started);
        }
      };
      const started = performance.now();
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      rates[kind].push(CONCURRENT_N / ((performance.now() - started) / 1000));
    }
  }
  const summary = (kind: Kind): Concurrent => {
    const sorted = latencies[kind].sort((a, b) => a - b);
    return {
      perSecond: median(rates[kind]),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      perRound: rates[kind],
    };
  };
  return { tool: summary('tool'), bare: summary('bare') };
}

interface Report {
  ready: RunnerReady;
  natsVersion: string;
  toolBody: string;
  headerBytes: number;
  barePayload: string;
  sequential: Record<Kind, Sequential>;
  concurrent: Record<Kind, Concurrent>;
}

function printReport(r: Report): void {
  const us = (ms: number): string => (ms * 1000).toFixed(1);
  const yesNo = (b: boolean): string => (b ? 'yes' : 'no');
  const cpus = os.cpus();
  const ratio = r.sequential.tool.p50 / r.sequential.bare.p50;
  const roundRatios = r.sequential.tool.perRound.map((t, i) =>
    (t / (r.sequential.bare.perRound[i] ?? Number.NaN)).toFixed(2),
  );
  const row = (cells: string[]): string =>
    `  ${cells[0]!.padEnd(12)}${cells
      .slice(1, -1)
      .map((c) => c.padStart(10))
      .join('')}   ${cells.at(-1)!}`;
  process.stdout.write(
    [
      `tool dispatch vs bare NATS request-reply (${ROUNDS} rounds x ${N} calls of each kind, blocks of ${BLOCK}, concurrency 1, ${WARMUP} warm-up calls of each)`,
      `  node ${process.version} (bench) / ${r.ready.node} (runner); nats-server ${r.natsVersion} on 127.0.0.1; ${cpus.length} CPUs (${cpus[0]?.model.trim() ?? '?'})`,
      `  libraries: ${libraryBuild()} (bench) / ${r.ready.libraries} (runner)`,
      `  OpenTelemetry SDK loaded: bench ${yesNo(tracingActive())}, runner ${yesNo(r.ready.tracing)}` +
        (TRACING
          ? '  (TRACING=1: register entry in both, no exporter: spans are recorded and dropped)'
          : '  (set TRACING=1 to measure with it)'),
      `  bytes: tool request ${r.toolBody.length} body + ${r.headerBytes} headers${TRACING ? ' (incl. traceparent)' : ''}; bare request ${r.barePayload.length}, echoed back`,
      '',
      row(['kind', 'p50 µs', 'p99 µs', 'p50 µs of each round']),
      ...(['tool', 'bare'] as const).map((k) =>
        row([LABEL[k], us(r.sequential[k].p50), us(r.sequential[k].p99), r.sequential[k].perRound.map(us).join(' / ')]),
      ),
      `  p50 ratio tool/bare: ${ratio.toFixed(2)}  (target ≤ ${TARGET_RATIO}: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'})  each round: ${roundRatios.join(' / ')}`,
      `  tool overhead over bare at p50: ${us(r.sequential.tool.p50 - r.sequential.bare.p50)} µs per call`,
      ...(['tool', 'bare'] as const).map((k) => {
        const c = r.sequential[k].cpuPerCall;
        return `  CPU per call, ${LABEL[k].padEnd(11)}: bench ${c.bench.toFixed(1)} µs + runner ${c.runner.toFixed(1)} µs = ${(c.bench + c.runner).toFixed(1)} µs`;
      }),
      '',
      `concurrency ${CONCURRENCY} (${CONCURRENT_ROUNDS} rounds x ${CONCURRENT_N} calls of each kind)`,
      row(['kind', 'calls/s', 'p50 µs', 'p99 µs', 'calls/s of each round']),
      ...(['tool', 'bare'] as const).map((k) =>
        row([
          LABEL[k],
          r.concurrent[k].perSecond.toFixed(0),
          us(r.concurrent[k].p50),
          us(r.concurrent[k].p99),
          r.concurrent[k].perRound.map((v) => v.toFixed(0)).join(' / '),
        ]),
      ),
      `  throughput ratio bare/tool: ${(r.concurrent.bare.perSecond / r.concurrent.tool.perSecond).toFixed(2)}`,
      '',
    ].join('\n'),
  );
}

// With TRACING=1 the benchmark runs in a child started with the telemetry register entry, as
// services are; the runner inherits the flag, so both processes load the SDK the same way.
if (TRACING && !tracingActive()) {
  if (process.env['BENCH_TRACED_CHILD'] === '1')
    throw new Error('TRACING=1 but @platform/telemetry/register did not start an SDK');
  const child = spawn(process.execPath, [...process.execArgv, ...TELEMETRY_IMPORT, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: benchEnv({ TRACING: '1', BENCH_TRACED_CHILD: '1' }),
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await runBenchmark();
}
