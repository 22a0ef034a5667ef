// A tenant agent's turn against a built-in agent's, side by side in one sitting (issue 36: "the
// turn's CPU within noise of a built-in agent's"). One platform; the tenant agent is a copy of the
// built-in default agent's spec written through `POST /v1/agents`, so both run the same 2-step
// calculator turn and differ only in how the agent is found (the resolution step, its version and
// the run's agent columns). Rounds alternate which goes first, so host drift hits both alike; each
// round measures the CPU of every process per turn at CONCURRENCY and the share of turns that
// skipped a duty (a round past 5% is invalid and left out of the medians).
// PostgreSQL runs durable unless BENCH_POSTGRES=fast.
// Run: npx nx run bench-turn:bench-agent   (env: ROUNDS, N64, CONCURRENCY, WARMUP, RAMP, BENCH_POSTGRES)
import {
  closedLoop,
  cpuCount,
  describeDutySkips,
  dutySkips,
  intEnv,
  postgresDurabilityFromEnv,
  startBenchPlatform,
  type BenchPlatform,
  type DutySkips,
  type PlatformProcess,
} from '@platform/bench-kit';
import { median } from '@platform/testing';
import { loadavg } from 'node:os';

const ROUNDS = intEnv('ROUNDS', 6);
const N64 = intEnv('N64', 1_500);
const CONCURRENCY = intEnv('CONCURRENCY', 64);
const WARMUP = intEnv('WARMUP', 200);
const RAMP = intEnv('RAMP', 256);
const TENANT_AGENT = 'bench-tenant-calculator';

type Variant = 'built-in' | 'tenant';
interface Round {
  variant: Variant;
  turnsPerSecond: number;
  cpuPerTurn: Map<PlatformProcess, number>;
  skips: DutySkips;
}

/** Copies the built-in default agent's spec into a tenant agent of the bench's tenant; returns its id. */
async function tenantCopyOfBuiltIn(bench: BenchPlatform): Promise<{ builtIn: string; tenant: string }> {
  const headers = { authorization: `Bearer ${bench.developerToken}`, 'content-type': 'application/json' };
  const listed = await fetch(`${bench.platform.apiUrl}/v1/agents`, { headers });
  const { agents } = (await listed.json()) as {
    agents: Array<{ id: string; builtIn: boolean; spec: Record<string, unknown> | null }>;
  };
  const builtIn = agents.find((a) => a.builtIn && a.spec);
  if (!builtIn) throw new Error('the platform lists no built-in agent with a spec');
  const created = await fetch(`${bench.platform.apiUrl}/v1/agents`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ ...builtIn.spec, name: TENANT_AGENT }),
  });
  const body = (await created.json()) as { id?: string; error?: { code: string; message: string } };
  if (created.status !== 201 || !body.id)
    throw new Error(`creating the tenant agent: HTTP ${created.status} ${JSON.stringify(body.error)}`);
  return { builtIn: builtIn.id, tenant: body.id };
}

async function measure(bench: BenchPlatform, variant: Variant, agent: string): Promise<Round> {
  const turn = () => bench.turn({}, { agent });
  const ramp = await closedLoop(turn, CONCURRENCY, RAMP);
  if (ramp.errors) throw new Error(`${variant}: ${ramp.errors} ramp turns failed (${ramp.firstError})`);
  await bench.drainIngestion();
  const duties = await bench.duties();
  const before = await bench.sample();
  const load = await closedLoop(turn, CONCURRENCY, N64);
  await bench.drainIngestion();
  const after = await bench.sample();
  if (load.errors) throw new Error(`${variant}: ${load.errors} turns failed (${load.firstError})`);
  const turns = load.latenciesMs.length;
  const cpuPerTurn = new Map(
    [...after]
      .filter(([name]) => name !== 'llm-sim')
      .map(([name, s]) => [name, (s.cpuMs - (before.get(name)?.cpuMs ?? 0)) / turns] as const),
  );
  return {
    variant,
    turnsPerSecond: (1000 * turns) / load.elapsedMs,
    cpuPerTurn,
    skips: dutySkips(duties, await bench.duties(), turns),
  };
}

const fmt = (n: number, digits = 2): string => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const total = (r: Round): number => [...r.cpuPerTurn.values()].reduce((a, b) => a + b, 0);

function report(rounds: Round[]): void {
  // Valid rounds only; a variant with none is shown from all its rounds, marked INVALID.
  const valid = (v: Variant) => {
    const all = rounds.filter((r) => r.variant === v);
    const kept = all.filter((r) => r.skips.valid);
    return kept.length ? kept : all;
  };
  const [a, b] = [valid('built-in'), valid('tenant')];
  const invalid = [...a, ...b].some((r) => !r.skips.valid);
  const line = (label: string, of: (r: Round) => number, digits = 2) => {
    const [ma, mb] = [median(a.map(of)), median(b.map(of))];
    process.stdout.write(`| ${label} | ${fmt(ma, digits)} | ${fmt(mb, digits)} | ${fmt(mb / ma)}x |\n`);
  };
  process.stdout.write(
    `\n## A tenant agent against the built-in agent it copies, 2-step calculator turn at concurrency ${CONCURRENCY}\n\n` +
      `${new Date().toISOString()}; node ${process.version}; ${cpuCount()} CPUs; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(
          ' ',
        )} at the end; ${ROUNDS} rounds of ${N64} turns each (alternating first), valid rounds: built-in ${a.filter((r) => r.skips.valid).length}, tenant ${b.filter((r) => r.skips.valid).length} (medians of those).\n` +
      (invalid
        ? '\n**INVALID**: no valid round for a variant (more than 5% of its turns skipped a duty); its figures are from all its rounds.\n'
        : '') +
      '\n| measure | built-in agent | tenant agent | tenant / built-in |\n|---|---|---|---|\n',
  );
  line('turns/s', (r) => r.turnsPerSecond, 0);
  line('CPU ms per turn, all processes but llm-sim', total);
  for (const name of rounds[0]!.cpuPerTurn.keys()) line(`CPU ms per turn: ${name}`, (r) => r.cpuPerTurn.get(name)!);
  process.stdout.write('\nEach round:\n\n');
  for (const r of rounds)
    process.stdout.write(
      `- ${r.variant}: ${fmt(r.turnsPerSecond, 0)} turns/s, ${fmt(total(r))} ms CPU per turn; ${describeDutySkips(r.skips)}\n`,
    );
}

const bench = await startBenchPlatform({ durability: postgresDurabilityFromEnv(), dutyCounters: true });
try {
  const agents = await tenantCopyOfBuiltIn(bench);
  const agentOf: Record<Variant, string> = { 'built-in': agents.builtIn, tenant: agents.tenant };
  for (const variant of ['built-in', 'tenant'] as const)
    await closedLoop(() => bench.turn({}, { agent: agentOf[variant] }), 1, WARMUP);
  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order: Variant[] = round % 2 === 0 ? ['built-in', 'tenant'] : ['tenant', 'built-in'];
    for (const variant of order) {
      const measured = await measure(bench, variant, agentOf[variant]);
      rounds.push(measured);
      process.stderr.write(
        `round ${round + 1}/${ROUNDS} ${variant}: ${fmt(measured.turnsPerSecond, 0)} turns/s, ${fmt(total(measured))} ms CPU per turn\n`,
      );
    }
  }
  report(rounds);
} finally {
  await bench.stop();
}
