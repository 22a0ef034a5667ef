// The open-loop mode: the saturation throughput measured closed-loop, then turns offered at fixed
// fractions of it, with latency percentiles from each turn's intended send time; and the rate at
// which p99 passes the tail target.
import { median, percentile } from '@platform/testing';
import { closedLoop, type Turn } from '@platform/bench-kit';
import { openLoop, type OpenLoopResult } from './open-loop.js';

export interface OpenLoopSettings {
  rounds: number;
  concurrency: number;
  /** Unmeasured closed-loop turns before measuring saturation. */
  ramp: number;
  /** Closed-loop turns that measure saturation. */
  saturationTurns: number;
  /** Offered rates as fractions of the saturation throughput, e.g. [0.25, 0.5, 0.75]. */
  fractions: number[];
  /** How long each rate is offered. */
  seconds: number;
  /** The tail target: the knee search looks for the rate where p99 passes it. */
  p99TargetMs: number;
  /** Fractions tried, in order, by the knee search (empty: no search). */
  kneeFractions: number[];
  /** Wraps each offered rate's phase (the time breakdown's window), labelled with {@link openWindowLabel}. */
  measured?: <T extends { latenciesMs: number[] }>(label: string, load: () => Promise<T>) => Promise<T>;
}

/** The label of an offered rate's window in the time breakdown. */
export function openWindowLabel(fraction: number): string {
  return `${(fraction * 100).toFixed(0)}% of saturation`;
}

interface RateSummary {
  fraction: number;
  rates: number[];
  results: OpenLoopResult[];
}

const sortedOf = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);
const pct = (r: OpenLoopResult, p: number): number => percentile(sortedOf(r.latenciesMs), p);
const fmt = (n: number, digits = 1): string => n.toFixed(digits);
const out = (line: string): void => void process.stdout.write(`${line}\n`);

export async function runOpenLoop(turn: Turn, settings: OpenLoopSettings, log: (line: string) => void): Promise<void> {
  const saturations: number[] = [];
  const summaries: RateSummary[] = settings.fractions.map((fraction) => ({ fraction, rates: [], results: [] }));
  for (let round = 1; round <= settings.rounds; round++) {
    await closedLoop(turn, settings.concurrency, settings.ramp);
    const saturation = await closedLoop(turn, settings.concurrency, settings.saturationTurns);
    const throughput = (saturation.latenciesMs.length / saturation.elapsedMs) * 1000;
    saturations.push(throughput);
    // Rates interleaved within the round, so a slow period of the host touches all of them.
    for (const summary of summaries) {
      const rate = summary.fraction * throughput;
      summary.rates.push(rate);
      const offer = (): Promise<OpenLoopResult> => openLoop(turn, rate, settings.seconds * 1000);
      summary.results.push(
        await (settings.measured ? settings.measured(openWindowLabel(summary.fraction), offer) : offer()),
      );
    }
    log(`open-loop round ${round}/${settings.rounds} done (saturation ${fmt(throughput, 0)} turns/s)`);
  }
  const saturation = median(saturations);
  out(
    `\nOpen loop: saturation (closed loop, concurrency ${settings.concurrency}) ${fmt(saturation, 0)} turns/s (median of ${settings.rounds}); each rate offered ${settings.seconds} s; latency from the intended send time`,
  );
  out('| offered (share of saturation) | answered turns/s | p50 | p99 | p99.9 | max | errors | worst send lag |');
  out('|---|---|---|---|---|---|---|---|');
  for (const s of summaries) {
    const m = (f: (r: OpenLoopResult) => number): number => median(s.results.map(f));
    out(
      `| ${fmt(median(s.rates), 0)} turns/s (${fmt(s.fraction * 100, 0)}%) | ${fmt(
        m((r) => r.achievedRate),
        0,
      )} | ${fmt(m((r) => pct(r, 50)))} ms | ${fmt(m((r) => pct(r, 99)))} ms | ${fmt(m((r) => pct(r, 99.9)))} ms | ${fmt(m((r) => Math.max(...r.latenciesMs)))} ms | ${s.results.reduce((n, r) => n + r.errors, 0)} | ${fmt(m((r) => r.worstSendLagMs))} ms |`,
    );
  }
  if (settings.kneeFractions.length === 0) return;
  let below: { rate: number; p99: number } | undefined;
  for (const fraction of settings.kneeFractions) {
    const result = await openLoop(turn, fraction * saturation, settings.seconds * 1000);
    const p99 = pct(result, 99);
    log(`knee search: ${fmt(fraction * saturation, 0)} turns/s -> p99 ${fmt(p99)} ms`);
    if (p99 > settings.p99TargetMs) {
      out(
        `\np99 passes ${settings.p99TargetMs} ms at ${fmt(result.rate, 0)} turns/s (${fmt(fraction * 100, 0)}% of saturation; p99 ${fmt(p99)} ms)${below ? `; at ${fmt(below.rate, 0)} turns/s it was ${fmt(below.p99)} ms` : ' (already at the lowest rate tried)'}`,
      );
      return;
    }
    below = { rate: result.rate, p99 };
  }
  out(
    `\np99 stayed under ${settings.p99TargetMs} ms up to ${fmt(below?.rate ?? 0, 0)} turns/s (the highest rate tried)`,
  );
}
