// The "where the time goes" tables: each phase's p50/p99 per load window, where the slowest
// turns' extra time went, and each service's event-loop delay and GC pauses.
import type { RuntimeSnapshot } from '@platform/service-kit';
import { ROOT_PHASE, type PhaseSample } from './turn-phases.js';

/** One load window (e.g. one offered rate): its traced turns' phases and the services' runtime. */
export interface PhaseWindow {
  label: string;
  /** Turns sent traced in the window. */
  traced: number;
  /** One entry per traced turn whose trace arrived complete. */
  turns: PhaseSample[][];
  runtime: Map<string, RuntimeSnapshot>;
  /** Turns answered in the window (traced or not), for CPU per turn. */
  answered: number;
}

const fmt = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** Nearest-rank percentile of unsorted values. */
function pct(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface PhaseStats {
  phase: string;
  exclusive: boolean;
  /** Per turn (0 where the turn had no such phase). */
  values: number[];
  present: number;
  offsets: number[];
}

function statsOf(window: PhaseWindow): Map<string, PhaseStats> {
  const stats = new Map<string, PhaseStats>();
  window.turns.forEach((turn, index) => {
    for (const sample of turn) {
      let s = stats.get(sample.phase);
      if (!s)
        stats.set(
          sample.phase,
          (s = {
            phase: sample.phase,
            exclusive: sample.exclusive,
            values: new Array<number>(window.turns.length).fill(0),
            present: 0,
            offsets: [],
          }),
        );
      s.values[index]! += sample.durationMs;
      s.present += 1;
      s.offsets.push(sample.offsetMs);
    }
  });
  return stats;
}

/**
 * Prints the tables (markdown) through `out`. `reference` names the window whose tail is taken
 * apart (e.g. the 50% rate).
 */
export function printPhaseReport(
  windows: readonly PhaseWindow[],
  reference: string,
  out: (line: string) => void,
): void {
  const ref = windows.find((w) => w.label === reference) ?? windows[0];
  if (!ref) return;
  const all = windows.map((w) => ({ window: w, stats: statsOf(w) }));
  const refStats = all.find((a) => a.window === ref)!.stats;
  const phases = [...new Set(all.flatMap((a) => [...a.stats.keys()]))];
  const order = (phase: string): number =>
    pct(refStats.get(phase)?.offsets ?? all.find((a) => a.stats.has(phase))!.stats.get(phase)!.offsets, 50);
  phases.sort((a, b) => order(a) - order(b) || a.localeCompare(b));

  out(
    `\nWhere the time goes: phases of the traced turns (from the services' spans), p50 / p99 in ms per window; "*" marks time in no other phase`,
  );
  out(
    `| phase | starts at (p50, ${ref.label}) | per turn | ${windows.map((w) => `${w.label} (${w.turns.length}/${w.traced} traces)`).join(' | ')} |`,
  );
  out(`|---|---|---|${windows.map(() => '---|').join('')}`);
  for (const phase of phases) {
    const first = all.find((a) => a.stats.has(phase))!.stats.get(phase)!;
    const perTurn = ref.turns.length ? (refStats.get(phase)?.present ?? 0) / ref.turns.length : NaN;
    const cells = all.map(({ stats }) => {
      const s = stats.get(phase);
      return s ? `${fmt(pct(s.values, 50))} / ${fmt(pct(s.values, 99))}` : '-';
    });
    out(
      `| ${first.exclusive ? '* ' : ''}${phase} | ${fmt(order(phase))} | ${fmt(perTurn, 2)} | ${cells.join(' | ')} |`,
    );
  }

  printTail(ref, refStats, out);
  printRuntime(windows, out);
}

/** Which exclusive phases the slowest 1% of turns (at least 3) spent their extra time in. */
function printTail(ref: PhaseWindow, stats: Map<string, PhaseStats>, out: (line: string) => void): void {
  const totals = ref.turns.map((turn) => turn.find((s) => s.phase === ROOT_PHASE)?.durationMs ?? NaN);
  const ranked = totals
    .map((total, index) => ({ total, index }))
    .filter((t) => Number.isFinite(t.total))
    .sort((a, b) => b.total - a.total);
  const tail = ranked.slice(0, Math.max(3, Math.ceil(ranked.length / 100)));
  if (tail.length === 0) return;
  const rows = [...stats.values()]
    .filter((s) => s.exclusive)
    .map((s) => {
      const median = pct(s.values, 50);
      const inTail = tail.reduce((sum, t) => sum + s.values[t.index]!, 0) / tail.length;
      return { phase: s.phase, median, inTail, extra: inTail - median };
    })
    .sort((a, b) => b.extra - a.extra);
  const extraTotal = rows.reduce((sum, r) => sum + Math.max(0, r.extra), 0);
  out(
    `\nThe slowest ${tail.length} traced turns at ${ref.label} (server side ${fmt(tail.at(-1)!.total)}-${fmt(tail[0]!.total)} ms, median turn ${fmt(
      pct(
        ranked.map((r) => r.total),
        50,
      ),
    )} ms): where their extra time went`,
  );
  out(
    '| phase (time in no other phase) | median turn (ms) | slowest turns, mean (ms) | extra (ms) | share of the extra |',
  );
  out('|---|---|---|---|---|');
  for (const r of rows.slice(0, 10))
    out(
      `| ${r.phase} | ${fmt(r.median)} | ${fmt(r.inTail)} | ${fmt(r.extra)} | ${fmt((Math.max(0, r.extra) / extraTotal) * 100, 0)}% |`,
    );
}

function printRuntime(windows: readonly PhaseWindow[], out: (line: string) => void): void {
  const services = [...new Set(windows.flatMap((w) => [...w.runtime.keys()]))].sort();
  if (services.length === 0) return;
  out(
    '\nEvent-loop delay and GC pauses per service and window (RUNTIME_DIAGNOSTICS_PORT): loop delay p99 / max (ms); GC pauses count, total and longest (ms); CPU ms per answered turn',
  );
  out(`| service | ${windows.map((w) => `${w.label}: loop p99 / max | GC n / total / max | CPU/turn`).join(' | ')} |`);
  out(`|---|${windows.map(() => '---|---|---|').join('')}`);
  for (const service of services) {
    const cells = windows.map((w) => {
      const r = w.runtime.get(service);
      if (!r) return '- | - | -';
      return `${fmt(r.eventLoopDelayMs.p99)} / ${fmt(r.eventLoopDelayMs.max)} | ${r.gc.count} / ${fmt(r.gc.totalMs)} / ${fmt(r.gc.maxMs)} | ${fmt(r.cpuMs / Math.max(1, w.answered), 2)}`;
    });
    out(`| ${service} | ${cells.join(' | ')} |`);
  }
}
