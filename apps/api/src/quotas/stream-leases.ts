import { randomUUID } from 'node:crypto';
import { compositeKey, QUOTA_NAMES } from '@platform/contracts';
import { quotaExceeded, type Logger, type Redis } from '@platform/service-kit';
import type { Principal } from '../auth.js';
import type { TenantQuotas } from './tenant-quotas.js';

/** An open stream's hold on its tenant's concurrent_streams quota; released when the stream ends. */
export interface StreamLease {
  release(): void;
}

/** Counts a tenant's open event streams against its tier's `concurrentStreams` quota. */
export interface StreamQuota {
  /** A lease for one more stream of `principal`'s tenant, or 429 QUOTA_EXCEEDED when it has its quota open. */
  acquire(principal: Principal): Promise<StreamLease>;
}

/** No quota (tests and tools that build the app without Redis). */
export const unlimitedStreams: StreamQuota = { acquire: async () => ({ release: () => undefined }) };

// One round trip: drop the leases whose replica stopped renewing them, refuse at the quota, else
// add this one. KEYS[1] the tenant's set; ARGV: now, lease expiry, member, limit, key ttl (ms).
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

export interface RedisStreamLeasesOptions {
  redis: Redis;
  quotas: TenantQuotas;
  logger: Logger;
  /** How long a lease counts without renewal: a crashed replica's streams stop counting after it (renewed every third). */
  leaseMs: number;
}

/**
 * Open event streams per tenant, counted across every api replica in Redis: one sorted set per
 * tenant whose members are the open streams, scored by when their lease ends. Each replica renews
 * its own streams' leases every `leaseMs / 3` and removes a stream's member when it closes, so a
 * replica that crashes stops counting once its leases end. Redis holds only what may be lost:
 * when it is unreachable a stream is let through (and the outage logged), never refused.
 */
export class RedisStreamLeases implements StreamQuota {
  private readonly open = new Map<string, string>(); // member -> key
  private readonly renewal: NodeJS.Timeout;

  constructor(private readonly options: RedisStreamLeasesOptions) {
    this.renewal = setInterval(() => void this.renew(), Math.max(1, Math.floor(options.leaseMs / 3)));
    this.renewal.unref();
  }

  /** Streams open on this replica (for the platform.api.streams.open gauge). */
  get openHere(): number {
    return this.open.size;
  }

  async acquire(principal: Principal): Promise<StreamLease> {
    const { tier, quotas } = this.options.quotas.of(principal);
    const limit = quotas.concurrentStreams;
    const key = streamsKey(principal.tenantId);
    const member = randomUUID();
    const now = Date.now();
    let granted = true;
    try {
      granted =
        (await this.options.redis.eval(
          ACQUIRE,
          1,
          key,
          String(now),
          String(now + this.options.leaseMs),
          member,
          String(limit),
          String(this.options.leaseMs * 2),
        )) === 1;
    } catch (err) {
      this.options.logger.warn({ err: (err as Error).message }, 'stream quota unavailable; letting the stream through');
      return { release: () => undefined };
    }
    if (!granted) {
      throw quotaExceeded({
        quota: QUOTA_NAMES.concurrentStreams,
        limit,
        tier,
        message: `this tenant has ${limit} event streams open, the most its tier allows; close one first`,
      });
    }
    this.open.set(member, key);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.open.delete(member);
        this.options.redis
          .zrem(key, member)
          .catch((err: Error) =>
            this.options.logger.warn({ err: err.message }, 'cannot release a stream lease; it ends on its own'),
          );
      },
    };
  }

  /** Stops renewing; the leases still open end on their own within `leaseMs`. */
  stop(): void {
    clearInterval(this.renewal);
  }

  private async renew(): Promise<void> {
    if (this.open.size === 0) return;
    const expiry = String(Date.now() + this.options.leaseMs);
    const pipeline = this.options.redis.pipeline();
    for (const [member, key] of this.open) {
      pipeline.zadd(key, 'XX', expiry, member);
      pipeline.pexpire(key, this.options.leaseMs * 2);
    }
    try {
      await pipeline.exec();
    } catch (err) {
      this.options.logger.warn({ err: (err as Error).message }, 'cannot renew stream leases');
    }
  }
}

/** The tenant's set, keyed with the one unambiguous encoding of tenant-chosen parts. */
function streamsKey(tenantId: string): string {
  return `quota:streams:${compositeKey(tenantId)}`;
}
