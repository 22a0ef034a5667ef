import { QUOTA_NAMES } from '@platform/contracts';
import { quotaExceeded, type RateLimiter } from '@platform/service-kit';
import type { Principal } from '../auth.js';
import type { TenantQuotas } from './tenant-quotas.js';

const MINUTE_MS = 60_000;

/** Counts POST /v1/events per tenant and minute against its tier's `eventsPerMinute` quota. */
export interface EventRateQuota {
  /** Counts one event of `principal`'s tenant, or throws 429 QUOTA_EXCEEDED (with retry-after) past the quota. */
  consume(principal: Principal): Promise<void>;
}

export const unlimitedEvents: EventRateQuota = { consume: async () => undefined };

/** The quota in Redis, shared by every api replica (a fixed one-minute window; lets events through while Redis is down). */
export class RedisEventRate implements EventRateQuota {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly quotas: TenantQuotas,
  ) {}

  async consume(principal: Principal): Promise<void> {
    const { tier, quotas } = this.quotas.of(principal);
    const limit = quotas.eventsPerMinute;
    const decision = await this.limiter.consume(['events', principal.tenantId], limit, MINUTE_MS);
    if (decision.allowed) return;
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw quotaExceeded({
      quota: QUOTA_NAMES.eventsPerMinute,
      limit,
      tier,
      message: `this tenant may publish ${limit} events per minute; try again in ${seconds} s`,
      retryAfterSeconds: seconds,
    });
  }
}
