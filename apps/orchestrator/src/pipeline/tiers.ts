import { z } from 'zod';

/** Limits of one tenant tier; an unset limit does not apply. */
export const TierLimits = z
  .object({
    /** Turns a tenant of this tier may start per minute (overrides RATE_LIMIT_TURNS_PER_MINUTE). */
    turnsPerMinute: z.number().int().min(0).optional(),
    /** Model tokens (input + output) a tenant of this tier may use per UTC day. */
    tokensPerDay: z.number().int().positive().optional(),
  })
  .strict();
export type TierLimits = z.infer<typeof TierLimits>;

/** `TENANT_TIERS`: a JSON object of tier name -> limits, e.g. `{"free":{"turnsPerMinute":10,"tokensPerDay":200000}}`. */
export const TenantTiers = z.record(z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'tier names are 1-32 letters, digits, "_" or "-"'), TierLimits);
export type TenantTiers = z.infer<typeof TenantTiers>;

/** The limits for a request's tier: its own entry, else the default tier's, else none. */
export function limitsFor(tiers: TenantTiers, tier: string, defaultTier: string): TierLimits {
  return tiers[tier] ?? tiers[defaultTier] ?? {};
}
