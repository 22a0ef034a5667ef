import { QUOTA_NAMES } from '@platform/contracts';
import { quotaExceeded, type PlatformError } from '@platform/service-kit';
import type pg from 'pg';
import { SEALED_OVERHEAD_BYTES } from './crypto/aes-gcm.js';
import type { CredentialKey } from './credential-key.js';

/** A tenant's credential quotas (its tier's, TENANT_TIERS). */
export interface CredentialQuota {
  /** Records the tenant may store. */
  maxRecords: number;
  /** Bytes of secrets (their JSON) the tenant may store, summed over its records. */
  maxBytes: number;
  /** The configured tier the quotas are of. */
  tier: string;
}

/**
 * Checks, inside the save's transaction, that the tenant's records and secret bytes with this
 * save stay within its quota; returns the refusal, or nothing. The transaction first takes a lock
 * of the tenant's credential saves (two keys, so no tenant id can collide with another's through
 * a separator), so concurrent saves of one tenant are counted one after another.
 * A save that replaces a record counts the new secret instead of the old one. Model connection
 * keys (service `@model-connection`) are not credentials: their own quota counts them.
 */
export async function checkCredentialQuota(
  client: pg.PoolClient,
  key: CredentialKey,
  secretBytes: number,
  quota: CredentialQuota,
): Promise<PlatformError | undefined> {
  await client.query({
    name: 'credential-quota-lock',
    text: "SELECT pg_advisory_xact_lock(hashtext('credential-quota'), hashtext($1))",
    values: [key.tenantId],
  });
  const { rows } = await client.query<{ others: string; other_bytes: string; exists: boolean }>({
    name: 'credential-quota-usage',
    text: `SELECT count(*) FILTER (WHERE NOT same) AS others,
                  coalesce(sum(octet_length(ciphertext) - $4) FILTER (WHERE NOT same), 0) AS other_bytes,
                  bool_or(same) IS TRUE AS exists
             FROM (SELECT ciphertext, (service = $2 AND account = $3) AS same FROM credentials WHERE tenant_id = $1 AND service NOT LIKE '@%') mine`,
    values: [key.tenantId, key.service, key.account, SEALED_OVERHEAD_BYTES],
  });
  const usage = rows[0]!;
  const records = Number(usage.others) + 1;
  if (!usage.exists && records > quota.maxRecords) {
    return quotaExceeded({
      quota: QUOTA_NAMES.credentialRecords,
      limit: quota.maxRecords,
      tier: quota.tier,
      message: `this tenant stores ${quota.maxRecords} credentials, the most its tier allows; delete one first`,
    });
  }
  const bytes = Number(usage.other_bytes) + secretBytes;
  if (bytes > quota.maxBytes) {
    return quotaExceeded({
      quota: QUOTA_NAMES.credentialBytes,
      limit: quota.maxBytes,
      tier: quota.tier,
      message: `this secret would bring the tenant's credentials to ${bytes} bytes; its tier allows ${quota.maxBytes}: delete or shrink others first`,
    });
  }
  return undefined;
}
