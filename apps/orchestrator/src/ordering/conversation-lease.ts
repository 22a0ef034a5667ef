import { compositeKey } from '@platform/contracts';
import type { Redis } from '@platform/service-kit';

// Takes the lease when free and issues the next fencing token for the conversation.
const ACQUIRE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
return token
`;
const RENEW =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
// After a Redis flush the token counter restarts; move it past the highest token already used.
const RAISE =
  "local current = tonumber(redis.call('GET', KEYS[1]) or '0') if current < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end return 1";

export interface HeldLease {
  token: number;
  /** Extends the lease; false when it was lost (expired and taken, or Redis flushed). */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

/** A lease held in Redis: its key and value, so a replica renews all it holds in one round trip. */
class RedisHeldLease implements HeldLease {
  constructor(
    readonly token: number,
    readonly key: string,
    readonly value: string,
    private readonly owner: ConversationLease,
  ) {}

  renew(): Promise<boolean> {
    return this.owner.renewAll([this]).then((renewed) => renewed === 1);
  }

  async release(): Promise<void> {
    await this.owner.releaseKey(this.key, this.value);
  }
}

/**
 * One holder per conversation at a time: a Redis key with a time-to-live, renewed while the
 * holder works, and a fencing token that grows with every acquisition. Redis may lose it (a
 * flush, a failover): the token is checked again where it matters, when a run is claimed in
 * Postgres, so a holder whose lease was lost cannot claim work any more.
 */
export class ConversationLease {
  constructor(
    private readonly redis: Redis,
    private readonly owner: string,
    private readonly ttlMs: number,
    private readonly keyPrefix = 'platform:conversation',
  ) {}

  private keys(tenantId: string, conversationId: string): { lease: string; counter: string } {
    // One hash slot for both keys, so the scripts also work on Redis Cluster. The pair is encoded
    // (compositeKey): `{acme:eu:support}` was both (acme, eu:support) and (acme:eu, support).
    const base = `${this.keyPrefix}:{${compositeKey(tenantId, conversationId)}}`;
    return { lease: `${base}:lease`, counter: `${base}:fence` };
  }

  async acquire(tenantId: string, conversationId: string): Promise<HeldLease | undefined> {
    const keys = this.keys(tenantId, conversationId);
    const token = Number(await this.redis.eval(ACQUIRE, 2, keys.lease, keys.counter, this.owner, String(this.ttlMs)));
    if (!token) return undefined;
    return new RedisHeldLease(token, keys.lease, `${this.owner}|${token}`, this);
  }

  /**
   * Extends every lease of `leases` that this holder issued and still holds, in one pipelined
   * round trip (one script per lease: each lease key lives in its own hash slot, so this also works
   * on Redis Cluster). Leases from elsewhere (e.g. the Postgres-only fallback) are skipped.
   * Resolves with how many were extended.
   */
  async renewAll(leases: readonly HeldLease[]): Promise<number> {
    const mine = leases.filter((lease): lease is RedisHeldLease => lease instanceof RedisHeldLease);
    if (mine.length === 0) return 0;
    const pipeline = this.redis.pipeline();
    for (const lease of mine) pipeline.eval(RENEW, 1, lease.key, lease.value, String(this.ttlMs));
    const replies = (await pipeline.exec()) ?? [];
    return replies.filter(([error, reply]) => !error && Number(reply) === 1).length;
  }

  /** Deletes the lease key while it still holds `value` (a lease taken over since is left alone). */
  async releaseKey(key: string, value: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, key, value);
  }

  /** Makes the next token higher than `token` (used when Postgres has seen higher tokens than Redis remembers). */
  async raiseTokensAbove(tenantId: string, conversationId: string, token: number): Promise<void> {
    await this.redis.eval(RAISE, 1, this.keys(tenantId, conversationId).counter, String(token));
  }
}
