import { recordQuotaRefusal } from '@platform/telemetry';
import { SharedErrorCodes } from './error-catalogue.js';
import { PlatformError } from './errors.js';

/** What a quota refusal says: which quota, its limit, the tier whose limit it is, and why. */
export interface QuotaRefusal {
  /** The quota's stable name (QUOTA_NAMES in @platform/contracts), e.g. `credential_bytes`. */
  quota: string;
  limit: number;
  /** The configured tier whose quota applied. */
  tier: string;
  /** For people: what was refused and what to do. */
  message: string;
  /** For rate quotas: when a request would be accepted again. */
  retryAfterSeconds?: number;
}

/**
 * The error of a request past a tenant's quota: `429 QUOTA_EXCEEDED` at the api, with `quota`,
 * `limit` and `tier` in the details. Counts the refusal (`platform.quota.refusals`) as it is made,
 * so every service that enforces a quota is measured the same way.
 */
export function quotaExceeded(refusal: QuotaRefusal): PlatformError {
  recordQuotaRefusal(refusal.quota, refusal.tier);
  return new PlatformError('resource_exhausted', SharedErrorCodes.QUOTA_EXCEEDED, refusal.message, {
    details: { quota: refusal.quota, limit: refusal.limit, tier: refusal.tier },
    ...(refusal.retryAfterSeconds !== undefined ? { retryAfterSeconds: refusal.retryAfterSeconds } : {}),
  });
}
