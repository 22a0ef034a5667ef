import { describe, expect, it } from 'vitest';
import {
  createLatencySampler,
  LatencyDistribution,
  logNormalParameters,
  MAX_SAMPLED_DELAY_MS,
  seededUniform,
} from './latency-distribution.js';

/** The q-quantile of a sample (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function sample(distribution: LatencyDistribution, n: number): number[] {
  const draw = createLatencySampler(distribution);
  return Array.from({ length: n }, draw).sort((a, b) => a - b);
}

describe('the latency distribution', () => {
  it.each([
    { medianMs: 2_500, p99Ms: 8_000 },
    { medianMs: 500, p99Ms: 5_000 },
    { medianMs: 60_000, p99Ms: 90_000 },
  ])(
    'draws a log-normal with median $medianMs ms and p99 $p99Ms ms (seeded sample of 200,000)',
    ({ medianMs, p99Ms }) => {
      const sorted = sample(LatencyDistribution.parse({ medianMs, p99Ms, seed: 42 }), 200_000);
      // A sample of 200,000 puts its median within about 0.5% and its p99 within about 2% of the
      // distribution's; the tolerances leave room for that and the rounding to whole milliseconds.
      expect(quantile(sorted, 0.5) / medianMs).toBeGreaterThan(0.98);
      expect(quantile(sorted, 0.5) / medianMs).toBeLessThan(1.02);
      expect(quantile(sorted, 0.99) / p99Ms).toBeGreaterThan(0.95);
      expect(quantile(sorted, 0.99) / p99Ms).toBeLessThan(1.05);
      // A log-normal's other quantiles follow from the same mu and sigma: check p90 too.
      const { mu, sigma } = logNormalParameters({ medianMs, p99Ms });
      const p90 = Math.exp(mu + 1.2815515655446004 * sigma);
      expect(quantile(sorted, 0.9) / p90).toBeGreaterThan(0.97);
      expect(quantile(sorted, 0.9) / p90).toBeLessThan(1.03);
      expect(sorted[0]).toBeGreaterThan(0);
    },
  );

  it('is reproducible: the same seed draws the same sequence, another seed another', () => {
    const distribution = LatencyDistribution.parse({ medianMs: 2_500, p99Ms: 8_000, seed: 7 });
    const first = Array.from({ length: 50 }, createLatencySampler(distribution));
    const again = Array.from({ length: 50 }, createLatencySampler(distribution));
    const other = Array.from({ length: 50 }, createLatencySampler({ ...distribution, seed: 8 }));
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it('is a constant when p99 equals the median', () => {
    expect(new Set(sample(LatencyDistribution.parse({ medianMs: 300, p99Ms: 300 }), 1_000))).toEqual(new Set([300]));
  });

  it('caps a draw at the longest delay allowed', () => {
    // With the p99 at the cap, about 1% of the draws would go past it.
    const sorted = sample(
      LatencyDistribution.parse({ medianMs: MAX_SAMPLED_DELAY_MS / 4, p99Ms: MAX_SAMPLED_DELAY_MS }),
      10_000,
    );
    expect(sorted.at(-1)).toBe(MAX_SAMPLED_DELAY_MS);
    expect(sorted.filter((ms) => ms === MAX_SAMPLED_DELAY_MS).length).toBeGreaterThan(50);
  });

  it('refuses a p99 under the median, a non-positive median, an unknown field', () => {
    expect(LatencyDistribution.safeParse({ medianMs: 500, p99Ms: 400 }).success).toBe(false);
    expect(LatencyDistribution.safeParse({ medianMs: 0, p99Ms: 400 }).success).toBe(false);
    expect(LatencyDistribution.safeParse({ medianMs: 500, p99Ms: 900, sigma: 1 }).success).toBe(false);
    expect(LatencyDistribution.safeParse({ medianMs: 500, p99Ms: MAX_SAMPLED_DELAY_MS + 1 }).success).toBe(false);
  });

  it('draws uniform numbers in [0, 1) with a mean near one half', () => {
    const uniform = seededUniform(3);
    const draws = Array.from({ length: 100_000 }, uniform);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    expect(Math.abs(draws.reduce((a, b) => a + b, 0) / draws.length - 0.5)).toBeLessThan(0.005);
  });
});
