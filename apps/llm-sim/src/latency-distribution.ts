import { z } from 'zod';

/** The longest delay one call may draw (a log-normal's tail is unbounded; a stuck simulator helps no one). */
export const MAX_SAMPLED_DELAY_MS = 600_000;

// The standard normal's 99th percentile: p99 = median * exp(Z_99 * sigma) for a log-normal.
const Z_99 = 2.3263478740408408;

/**
 * A model call's latency as a log-normal distribution, given the way providers' latencies are
 * reported: its median and its 99th percentile. `seed` makes the sequence of drawn delays the same
 * on every run (which request draws which still follows the order requests arrive in).
 */
export const LatencyDistribution = z
  .strictObject({
    medianMs: z.number().positive().max(MAX_SAMPLED_DELAY_MS),
    p99Ms: z.number().positive().max(MAX_SAMPLED_DELAY_MS),
    seed: z.number().int().min(0).max(0xffff_ffff).default(1),
  })
  .refine((d) => d.p99Ms >= d.medianMs, { message: 'p99Ms must be at least medianMs', path: ['p99Ms'] });
export type LatencyDistribution = z.infer<typeof LatencyDistribution>;

/** Draws one delay (ms, rounded to a whole millisecond) per call. */
export type LatencySampler = () => number;

/** The log-normal's parameters: ln(delay) ~ N(mu, sigma²). */
export function logNormalParameters(distribution: Pick<LatencyDistribution, 'medianMs' | 'p99Ms'>): {
  mu: number;
  sigma: number;
} {
  return { mu: Math.log(distribution.medianMs), sigma: Math.log(distribution.p99Ms / distribution.medianMs) / Z_99 };
}

/** A sampler drawing from `distribution` with its own seeded generator, capped at {@link MAX_SAMPLED_DELAY_MS}. */
export function createLatencySampler(distribution: LatencyDistribution): LatencySampler {
  const { mu, sigma } = logNormalParameters(distribution);
  const uniform = seededUniform(distribution.seed);
  return () => Math.min(MAX_SAMPLED_DELAY_MS, Math.round(Math.exp(mu + sigma * standardNormal(uniform))));
}

/** A standard normal draw by the Box-Muller transform (one of its pair is used: simpler, and cheap enough). */
function standardNormal(uniform: () => number): number {
  // 1 - u lies in (0, 1], so the logarithm is finite.
  const u1 = 1 - uniform();
  const u2 = uniform();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * A small, fast 32-bit generator (mulberry32) of uniform numbers in [0, 1): statistically fine for
 * simulated latencies, and the same sequence for the same seed on every platform.
 */
export function seededUniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
