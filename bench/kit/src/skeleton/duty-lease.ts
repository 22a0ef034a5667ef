// The orchestrator's duty of running one turn per conversation at a time: a lease in Redis with a
// time to live and a fencing token that grows with every acquisition (the token goes into the
// run's row, so a holder that lost its lease cannot write). Two round trips per turn, each a
// cached script (EVALSHA).
import { Redis } from 'ioredis';

const ACQUIRE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
return token`;
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

type LeaseRedis = Redis & {
  skeletonAcquire(lease: string, counter: string, owner: string, ttlMs: number): Promise<number>;
  skeletonRelease(lease: string, value: string): Promise<number>;
};

export interface Lease {
  token: number;
  release(): Promise<void>;
}

export class ConversationLeases {
  private readonly redis: LeaseRedis;

  constructor(
    url: string,
    private readonly owner: string,
    private readonly ttlMs = 30_000,
  ) {
    const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
    redis.defineCommand('skeletonAcquire', { numberOfKeys: 2, lua: ACQUIRE });
    redis.defineCommand('skeletonRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis = redis as LeaseRedis;
  }

  /** The conversation's lease, or undefined while another holder has it. */
  async acquire(tenant: string, conversation: string): Promise<Lease | undefined> {
    const base = `skeleton:{${tenant}:${conversation}}`;
    const token = Number(await this.redis.skeletonAcquire(`${base}:lease`, `${base}:fence`, this.owner, this.ttlMs));
    if (!token) return undefined;
    const value = `${this.owner}|${token}`;
    return {
      token,
      release: async () => {
        await this.redis.skeletonRelease(`${base}:lease`, value);
      },
    };
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
