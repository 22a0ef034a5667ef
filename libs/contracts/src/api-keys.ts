import { z } from 'zod';

/**
 * Core NATS notice an api replica publishes when it revoked an API key; every replica drops the
 * key from its cache on it (docs/access.md#api-keys). Lost notices are bounded by the cache's
 * lifetime (API_KEY_CACHE_MS).
 */
export const API_KEY_REVOKED_SUBJECT = 'platform.api-keys.revoked';
export const ApiKeyRevoked = z.object({ keyId: z.string().regex(/^[0-9a-f]{16}$/) });
export type ApiKeyRevoked = z.infer<typeof ApiKeyRevoked>;
