// The side-by-side tables (markdown): figures, ratios to ours, the issue's targets, and where the
// platform's CPU goes, process by process beside the floor of its design.
import { persistedAll, type Peer, type PersistenceCheck } from './peer.js';
import { DURABLE_PEER_KEYS } from './peers/durable.js';
import type { PeerSummary } from './summary.js';

export interface ReportContext {
  latencyMs: number;
  concurrency: number;
  rounds: number;
}

const fmt = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const ratio = (a: number, b: number): string =>
  Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : '-';
/** Our rows: the engine, the platform, and the floor of the platform's design (not peers to beat). */
const OURS = new Set(['our-engine', 'our-platform', 'our-skeleton', 'our-skeleton-duties']);
/** The floor's processes (`skeleton <role>`) beside the platform's service doing that role's work. */
const FLOOR_ROLE_OF: Record<string, string> = {
  api: 'skeleton api',
  orchestrator: 'skeleton orchestrator',
  memory: 'skeleton memory',
  'tool-runner': 'skeleton tool',
  postgres: 'postgres',
  'nats-server': 'nats-server',
  'redis-server': 'redis-server',
};
const FLOOR_KEYS = ['our-skeleton', 'our-skeleton-duties'];
/** The peers that keep their state in storage (the in-process frameworks keep nothing). */
const DURABLE = new Set<string>(DURABLE_PEER_KEYS);

export function reportLatency(summaries: readonly PeerSummary[], context: ReportContext): string[] {
  const c = context.concurrency;
  const lines = [
    `\n### Model latency ${context.latencyMs} ms (medians of ${context.rounds} rounds)`,
    '',
    `| peer | p50 c1 (ms) | p99 c1 (ms) | turns/s c${c} | p50 / p99 c${c} (ms) | CPU ms/turn | llm-sim CPU ms/turn | failed turns | turns that skipped a duty c${c} |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of summaries) {
    const errors = s.errors ? `**${s.errors}** in ${s.failedRounds} round(s): ${s.firstError ?? ''}` : '0';
    lines.push(
      `| ${s.name} | ${fmt(s.p50c1)} | ${fmt(s.p99c1)} | ${fmt(s.throughput, 0)} | ${fmt(s.p50Load)} / ${fmt(s.p99Load)} | ${fmt(s.cpuPerTurn, 2)} | ${fmt(s.llmSimCpuPerTurn, 2)} | ${errors} | ${dutyCell(s)} |`,
    );
  }
  const engine = summaries.find((s) => s.key === 'our-engine');
  const platform = summaries.find((s) => s.key === 'our-platform');
  for (const ours of [engine, platform]) {
    if (!ours) continue;
    lines.push(
      '',
      `Each peer as a ratio to **${ours.name}** (latency and CPU: below 1 is less than ours; throughput: above 1 is more than ours):`,
      '',
    );
    lines.push(`| peer | p50 c1 | p99 c1 | turns/s c${c} | CPU ms/turn |`, '|---|---|---|---|---|');
    for (const s of summaries) {
      if (s === ours) continue;
      lines.push(
        `| ${s.name} | ${ratio(s.p50c1, ours.p50c1)} | ${ratio(s.p99c1, ours.p99c1)} | ${ratio(s.throughput, ours.throughput)} | ${ratio(s.cpuPerTurn, ours.cpuPerTurn)} |`,
      );
    }
  }
  lines.push(...targets(summaries, c));
  if (platform)
    lines.push(
      ...whereCpuGoes(
        platform,
        summaries.filter((s) => FLOOR_KEYS.includes(s.key)),
        c,
      ),
    );
  return lines;
}

/** The platform's CPU per turn by process, beside the floors' processes doing the same role's work. */
function whereCpuGoes(platform: PeerSummary, floors: readonly PeerSummary[], c: number): string[] {
  const lines = [
    '',
    `Where the platform's CPU goes at concurrency ${c} (ms per turn; the memory ingestion queue drained ${fmt(platform.settleMs, 0)} ms after the phase, and that work is counted)${floors.length ? ', beside the floor of its design (the same role in the skeleton; PostgreSQL, NATS and Redis are the same servers, idle platform included)' : ''}:`,
    '',
  ];
  const heads = floors.map((floor) => (floor.key === 'our-skeleton' ? 'floor' : 'floor with duties'));
  lines.push(
    `| process | CPU ms/turn |${heads.map((h) => ` ${h}: CPU ms/turn |`).join('')}`,
    `|---|---|${floors.map(() => '---|').join('')}`,
  );
  for (const [process, ms] of [...platform.cpuPerTurnByProcess].sort((a, b) => b[1] - a[1])) {
    const role = FLOOR_ROLE_OF[process];
    const cells = floors.map((floor) => {
      const floorMs = role ? floor.cpuPerTurnByProcess.get(role) : undefined;
      return ` ${floorMs === undefined ? '-' : fmt(floorMs, 2)} |`;
    });
    lines.push(`| ${process} | ${fmt(ms, 2)} |${cells.join('')}`);
  }
  lines.push(
    `| (bench driver, the HTTP client; not counted above) | ${fmt(platform.driverCpuPerTurn, 2)} |${floors.map((floor) => ` ${fmt(floor.driverCpuPerTurn, 2)} |`).join('')}`,
  );
  return lines;
}

/** The issue's targets, checked on this latency's figures. */
function targets(summaries: readonly PeerSummary[], c: number): string[] {
  const engine = summaries.find((s) => s.key === 'our-engine');
  const platform = summaries.find((s) => s.key === 'our-platform');
  const frameworks = summaries.filter((s) => !OURS.has(s.key) && !DURABLE.has(s.key) && s.errors === 0);
  const durable = summaries.filter((s) => DURABLE.has(s.key) && s.errors === 0);
  const langgraph = summaries.find((s) => s.key === 'langgraph');
  const lines = ['', 'Targets (issue 16; the durable peers: issue 40):', ''];
  const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  if (platform && durable.length) {
    const fastest = durable.reduce((a, b) => (b.throughput > a.throughput ? b : a));
    const quickest = durable.reduce((a, b) => (b.p50c1 < a.p50c1 ? b : a));
    lines.push(
      `- the platform ahead of every durable peer on throughput at c${c}: ${fmt(platform.throughput, 0)} against ${fmt(fastest.throughput, 0)} turns/s (${fastest.name}), ${ratio(platform.throughput, fastest.throughput)}: ${met(platform.throughput >= fastest.throughput)}`,
      `- the platform's p50 at c1 at most the best durable peer's: ${fmt(platform.p50c1)} against ${fmt(quickest.p50c1)} ms (${quickest.name}), ${ratio(platform.p50c1, quickest.p50c1)}: ${met(platform.p50c1 <= quickest.p50c1)}`,
    );
  }
  if (engine && frameworks.length) {
    const fastestLatency = frameworks.reduce((a, b) => (b.p50c1 < a.p50c1 ? b : a));
    const cheapest = frameworks.reduce((a, b) => (b.cpuPerTurn < a.cpuPerTurn ? b : a));
    lines.push(
      `- our engine at least as fast as the fastest peer per turn: p50 c1 ${fmt(engine.p50c1, 2)} ms against ${fmt(fastestLatency.p50c1, 2)} ms (${fastestLatency.name}): ${met(engine.p50c1 <= fastestLatency.p50c1)}; CPU ${fmt(engine.cpuPerTurn, 2)} ms/turn against ${fmt(cheapest.cpuPerTurn, 2)} ms (${cheapest.name}): ${met(engine.cpuPerTurn <= cheapest.cpuPerTurn)}`,
    );
  }
  if (platform && frameworks.length) {
    const fastest = frameworks.reduce((a, b) => (b.throughput > a.throughput ? b : a));
    lines.push(
      `- the platform at >= 0.5x the fastest in-process peer's throughput at c${c}: ${fmt(platform.throughput, 0)} against ${fmt(fastest.throughput, 0)} turns/s (${fastest.name}), ${ratio(platform.throughput, fastest.throughput)}: ${met(platform.throughput >= 0.5 * fastest.throughput)}`,
    );
  }
  if (platform && langgraph) {
    lines.push(
      `- the platform ahead of LangGraph.js on latency and throughput: p50 c1 ${fmt(platform.p50c1)} against ${fmt(langgraph.p50c1)} ms, ${fmt(platform.throughput, 0)} against ${fmt(langgraph.throughput, 0)} turns/s: ${met(platform.p50c1 < langgraph.p50c1 && platform.throughput > langgraph.throughput)}`,
    );
  }
  for (const floor of summaries.filter((s) => FLOOR_KEYS.includes(s.key))) {
    const fastest = frameworks.length ? frameworks.reduce((a, b) => (b.throughput > a.throughput ? b : a)) : undefined;
    const parts = [
      `p50 c1 ${fmt(floor.p50c1)} ms`,
      `${fmt(floor.throughput, 0)} turns/s`,
      `CPU ${fmt(floor.cpuPerTurn, 2)} ms/turn`,
    ];
    if (langgraph)
      parts.push(
        `latency ${floor.p50c1 < langgraph.p50c1 ? 'ahead of' : 'behind'} LangGraph.js, throughput ${floor.throughput > langgraph.throughput ? 'ahead of' : 'behind'} it`,
      );
    if (fastest) parts.push(`${ratio(floor.throughput, fastest.throughput)} the fastest in-process peer's throughput`);
    if (platform) parts.push(`the platform spends ${ratio(platform.cpuPerTurn, floor.cpuPerTurn)} its CPU per turn`);
    const what =
      floor.key === 'our-skeleton'
        ? "what the design's own exchanges allow (the floor: same processes and exchanges, no platform code)"
        : "what the design allows with the product's duties (the floor doing them in their cheapest form)";
    lines.push(`- ${what}: ${parts.join('; ')}`);
  }
  return lines;
}

/** What each durable peer's storage held after the run, against the turns it answered. */
export function reportPersistence(peers: readonly Peer[], checks: ReadonlyMap<string, PersistenceCheck>): string[] {
  const lines = [
    '',
    '### What the durable peers stored (read back after the run)',
    '',
    '| peer | turns answered | turns found complete in storage | where and what | verdict |',
    '|---|---|---|---|---|',
  ];
  for (const peer of peers) {
    const check = checks.get(peer.key);
    if (!check) continue;
    lines.push(
      `| ${peer.name} | ${check.turns} | ${check.stored} | ${check.detail} | ${persistedAll(check) ? 'every turn stored' : '**NOT every turn stored**'} |`,
    );
  }
  return lines;
}

/**
 * The platform's share of throughput-phase turns that skipped a duty, per round: `-` for peers
 * that do not count them (they have no such duties to shed). The row's figures come from its valid
 * rounds (at most 5% skipped); when none was valid the row is marked INVALID.
 */
function dutyCell(s: PeerSummary): string {
  if (!s.duties) return '-';
  const shares = s.duties.shares.map((share) => `${fmt(100 * share)}%`).join(', ');
  if (s.duties.allInvalid) return `**INVALID** (${shares}: every round past 5%)`;
  const left = s.duties.shares.length - s.duties.validRounds;
  return left ? `${shares} (${left} round(s) past 5% left out)` : shares;
}
