import { z } from 'zod';
import { LatencyDistribution } from './latency-distribution.js';

/** The fastest streamed answer that can be asked for; past it chunks go out as fast as the socket takes them anyway. */
export const MAX_TOKENS_PER_SECOND = 10_000;

/** A streamed answer's pace: content chunks (one per word, a token's stand-in) per second. */
export const TokensPerSecond = z.number().positive().max(MAX_TOKENS_PER_SECOND);

/**
 * The model's latency for every chat completion, as a real provider's would be (`PUT /_sim/latency`
 * and the `LLM_SIM_LATENCY_*` variables): a fixed `delayMs`, plus a delay drawn per call from a
 * log-normal `distribution`, added to a step's own `delayMs` before the answer (before the first
 * chunk when streaming); and `tokensPerSecond`, the pace of streamed answers. A scenario's own
 * `latency` and `tokensPerSecond` take the place of these for its calls. A PUT replaces the whole
 * setting: what it leaves out is off.
 */
export const LatencySetting = z
  .strictObject({
    delayMs: z.number().int().nonnegative().max(60_000).optional(),
    distribution: LatencyDistribution.nullable().optional(),
    tokensPerSecond: TokensPerSecond.nullable().optional(),
  })
  .refine((s) => s.delayMs !== undefined || s.distribution !== undefined || s.tokensPerSecond !== undefined, {
    message: 'set delayMs, distribution or tokensPerSecond',
  })
  .transform((s): ModelLatency => ({
    delayMs: s.delayMs ?? 0,
    distribution: s.distribution ?? null,
    tokensPerSecond: s.tokensPerSecond ?? null,
  }));

/** The model latency in force: every part filled in. */
export interface ModelLatency {
  delayMs: number;
  distribution: LatencyDistribution | null;
  tokensPerSecond: number | null;
}

/** No added latency, unpaced streams. */
export const NO_LATENCY: ModelLatency = { delayMs: 0, distribution: null, tokensPerSecond: null };
