// The agent-resolution step, warm (README, "The path of a turn"): what a turn pays to turn its
// run's recorded agent version into a compiled profile once this replica has compiled it, and
// what HandleMessage pays to resolve a name once the replica's directory has it. Postgres is out
// of the picture by design (a warm lookup never reaches it): the store answers from memory, and
// each measured call is one step or one resolution on the real classes.
// Run: npx nx run orchestrator:bench-agent-resolution   (env: CALLS, ROUNDS)
import { performance } from 'node:perf_hooks';
import { DEFAULT_LOOP_CONFIG, type ModelPort } from '@platform/agent-loop';
import { AgentSpec } from '@platform/contracts';
import { createLogger, type NatsConnection } from '@platform/service-kit';
import type { ClaimedRun } from '../journal/run-records.js';
import { ProfileRegistry } from '../profiles.js';
import { AgentDirectory } from '../tenant-agents/agent-directory.js';
import { AgentResolver } from '../tenant-agents/agent-resolver.js';
import type { AgentStore } from '../tenant-agents/agent-store.js';
import type { AgentRecord } from '../tenant-agents/agent-types.js';
import type { AdmittedAttempt } from '../turn/admission.js';
import { AgentResolutionStep } from '../turn/agent-resolution.js';

const CALLS = Number(process.env['CALLS'] ?? 100_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
const TENANT = 'bench-tenant';
const AGENT_ID = 'agt_00000000-0000-4000-8000-000000000001';

const model = { provider: 'bench', model: 'bench-1' } as unknown as ModelPort;
const defaults = {
  model: 'bench-1',
  fallbackModels: [],
  toolProtocol: 'native' as const,
  loopConfig: DEFAULT_LOOP_CONFIG,
};
const profiles = ProfileRegistry.fromOptions(
  { systemPrompt: 'You are a helpful assistant.', ...defaults },
  () => model,
);
const spec = AgentSpec.parse({
  name: 'support-bot',
  instructions: 'You answer customers of the shop, briefly and kindly.',
  tools: ['calculator', 'current_time', 'search_*'],
  loop: { maxTurns: 6 },
});
const record: AgentRecord = {
  tenantId: TENANT,
  agentId: AGENT_ID,
  name: 'support-bot',
  revision: 1,
  activeVersion: 1,
  latestVersion: 1,
  createdAt: new Date(),
  updatedAt: new Date(),
  deletedAt: null,
  createdBy: 'bench',
  spec,
};
const store = {
  find: () => Promise.resolve(record),
  pinOf: () => Promise.resolve(undefined),
  version: () =>
    Promise.resolve({
      agentId: AGENT_ID,
      version: 1,
      spec,
      createdAt: new Date(),
      createdBy: 'bench',
      publishedAt: new Date(),
    }),
} as unknown as AgentStore;
const directory = new AgentDirectory(store, {} as NatsConnection, createLogger({ service: 'bench', level: 'silent' }));
const resolver = new AgentResolver({
  profiles,
  directory,
  store,
  defaults,
  defaultTier: 'default',
  modelFor: () => model,
});
const step = new AgentResolutionStep({ agents: resolver, logger: createLogger({ service: 'bench', level: 'silent' }) });

const runOf = (more: Partial<ClaimedRun>): AdmittedAttempt =>
  ({
    attempt: { run: { runId: 'run_1', tenantId: TENANT, profile: 'support-bot', ...more } },
  }) as unknown as AdmittedAttempt;

/** Nearest-rank percentile of sorted samples. */
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const median = (values: number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

const cases: Record<string, () => Promise<unknown>> = {
  'step: tenant agent': () => step.run(runOf({ agent: { id: AGENT_ID, version: 1 } })),
  'step: tenant agent + overrides': () =>
    step.run(runOf({ agent: { id: AGENT_ID, version: 1 }, overrides: { instructions: 'In French.', maxTurns: 3 } })),
  'step: built-in profile': () => step.run(runOf({ profile: 'default', agent: { id: 'builtin:default', version: 0 } })),
  'message: tenant agent by name': () =>
    resolver.forMessage({
      tenantId: TENANT,
      conversationId: 'c1',
      tier: 'default',
      subject: 'u1',
      ref: 'support-bot',
      version: 0,
      overridesJson: '',
    }),
};

async function measure(run: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 5_000; i++) await run(); // warm-up: caches filled, JIT done
  const p50s: number[] = [];
  const p99s: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const samples = new Array<number>(CALLS);
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now();
      await run();
      samples[i] = performance.now() - started;
    }
    samples.sort((a, b) => a - b);
    p50s.push(percentile(samples, 50));
    p99s.push(percentile(samples, 99));
  }
  return { p50: median(p50s), p99: median(p99s) };
}

for (const [name, run] of Object.entries(cases)) {
  const { p50, p99 } = await measure(run);
  process.stdout.write(`${name.padEnd(34)} p50 ${(p50 * 1000).toFixed(2)} µs   p99 ${(p99 * 1000).toFixed(2)} µs\n`);
}
