// The api's duty of knowing who calls: API keys kept as their SHA-256 digests (never the keys), each
// naming its tenant, looked up per request as the platform's token cache does once warm.
import { createHash } from 'node:crypto';

const digest = (key: string): string => createHash('sha256').update(key).digest('hex');

export class ApiKeys {
  private readonly tenantByDigest = new Map<string, string>();

  constructor(keys: Readonly<Record<string, string>>) {
    for (const [key, tenant] of Object.entries(keys)) this.tenantByDigest.set(digest(key), tenant);
  }

  /** The tenant of a `Bearer <key>` header, or undefined for a missing, malformed or unknown key. */
  tenantOf(authorization: string | undefined): string | undefined {
    const match = /^Bearer (\S+)$/.exec(authorization ?? '');
    return match ? this.tenantByDigest.get(digest(match[1]!)) : undefined;
  }
}
