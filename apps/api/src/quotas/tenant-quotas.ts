import { quotasFor, type TenantTiers, type TierQuotas } from '@platform/contracts';
import type { Principal } from '../auth.js';

/** The api's view of TENANT_TIERS (parsed once at boot): the quotas of a caller's tier. */
export class TenantQuotas {
  constructor(
    private readonly tiers: TenantTiers,
    private readonly defaultTier: string,
  ) {}

  of(principal: Pick<Principal, 'tier'>): TierQuotas {
    return quotasFor(this.tiers, principal.tier ?? '', this.defaultTier);
  }
}
