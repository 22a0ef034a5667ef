import { z } from 'zod';

/**
 * A fixed latency added to every chat completion's scripted delay, as a real provider's would be
 * (benchmarks compare frameworks with the model answering at once and after, say, 300 ms).
 */
export const LatencySetting = z.strictObject({
  delayMs: z.number().int().nonnegative().max(60_000),
});
export type LatencySetting = z.infer<typeof LatencySetting>;
