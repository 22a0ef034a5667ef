// Measures the engine's own cost: a 2-step turn (one tool call, then an answer) with a model and
// a tool that answer instantly, so every microsecond measured is the loop's. Also memory per run.
// Run: npx nx run bench-agent-loop:bench   (env: RUNS, ROUNDS, CONCURRENT)
import { performance } from 'node:perf_hooks';
import { runAgentLoop, systemClock, type LoopResult } from '@platform/agent-loop';
import { FakeTools, reply, ScriptedModel } from '@platform/agent-loop/testing';
import { median, percentile } from '@platform/testing';

const RUNS = Number(process.env['RUNS'] ?? 5_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
const CONCURRENT = Number(process.env['CONCURRENT'] ?? 200);
const STEPS_PER_RUN = 2;

const tools = new FakeTools(
  { calculator: { run: () => ({ status: 'success', content: '{"result":84}' }) } },
  systemClock,
);
const messages = [
  { role: 'system' as const, content: 'You are a helpful assistant.' },
  { role: 'user' as const, content: 'What is 12 * (3 + 4)?' },
];

function oneRun(i: number): Promise<LoopResult> {
  // A fresh model per run: its script restarts (call, then answer).
  const model = new ScriptedModel([
    reply.calls([`call_${i}`, 'calculator', { expression: '12 * (3 + 4)' }]),
    reply.text('84'),
  ]);
  return runAgentLoop({ runId: `run_${i}`, messages }, { model, tools });
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function measureSteps(): Promise<{ p50: number; p99: number; perRound: number[] }> {
  for (let i = 0; i < 500; i++) await oneRun(i); // warm-up (JIT)
  const perRound: number[] = [];
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const roundSamples: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const result = await oneRun(i);
      const elapsed = performance.now() - started;
      if (result.stopReason !== 'final_answer' || result.turns !== STEPS_PER_RUN)
        throw new Error(`unexpected result: ${result.stopReason}`);
      roundSamples.push(elapsed / STEPS_PER_RUN);
    }
    perRound.push(median(roundSamples));
    samples.push(...roundSamples);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), perRound };
}

async function measureMemory(): Promise<{ retainedPerResultKb: number; livePerRunKb: number }> {
  gc();
  const base = process.memoryUsage().heapUsed;
  const kept: LoopResult[] = [];
  for (let i = 0; i < 1_000; i++) kept.push(await oneRun(i));
  gc();
  const retainedPerResultKb = (process.memoryUsage().heapUsed - base) / kept.length / 1024;
  kept.length = 0;
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 1);
  await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => oneRun(i)));
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  clearInterval(sampler);
  return { retainedPerResultKb, livePerRunKb: (peak - before) / CONCURRENT / 1024 };
}

const steps = await measureSteps();
const memory = await measureMemory();
const line = (label: string, value: string): string => `  ${label.padEnd(38)} ${value}`;
process.stdout.write(
  [
    `agent-loop engine overhead (${ROUNDS} rounds x ${RUNS} runs of ${STEPS_PER_RUN} steps, instant model and tool, node ${process.version})`,
    line(
      'per step p50',
      `${(steps.p50 * 1000).toFixed(1)} µs  (target < 200 µs: ${steps.p50 < 0.2 ? 'met' : 'NOT met'})`,
    ),
    line('per step p99', `${(steps.p99 * 1000).toFixed(1)} µs`),
    line('per step p50 of each round', steps.perRound.map((v) => `${(v * 1000).toFixed(1)}`).join(' / ') + ' µs'),
    line('retained per finished run (result)', `${memory.retainedPerResultKb.toFixed(1)} KiB`),
    line(`live heap per run (${CONCURRENT} concurrent)`, `${memory.livePerRunKb.toFixed(1)} KiB`),
    '',
  ].join('\n'),
);
