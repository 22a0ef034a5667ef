// Running totals of the shared tier's work, for a benchmark to take per-second rates of: PostgreSQL
// commits (pg_stat_database), Redis commands (INFO stats) and NATS messages (nats-server's /varz).
import { Redis } from 'ioredis';
import pg from 'pg';

export interface SharedTierCounters {
  /** Transactions committed in the whole cluster. */
  postgresCommits: number;
  redisCommands: number;
  /** Messages into and out of nats-server (a message to two subscribers counts once in, twice out). */
  natsMessagesIn: number;
  natsMessagesOut: number;
  /** When the reading was taken (ms, performance-independent wall clock). */
  at: number;
}

export interface SharedTierEndpoints {
  postgresUrl: string;
  redisUrl: string;
  /** nats-server's monitoring endpoint (`startInfra({ nats: { monitor: true } })`). */
  natsMonitorUrl: string;
}

export async function readSharedTierCounters(endpoints: SharedTierEndpoints): Promise<SharedTierCounters> {
  const db = new pg.Client({ connectionString: endpoints.postgresUrl });
  const redis = new Redis(endpoints.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await db.connect();
    await redis.connect();
    const [commits, info, varz] = await Promise.all([
      db.query<{ n: string }>('SELECT sum(xact_commit) AS n FROM pg_stat_database'),
      redis.info('stats'),
      fetch(`${endpoints.natsMonitorUrl}/varz`).then(
        async (r) => (await r.json()) as { in_msgs: number; out_msgs: number },
      ),
    ]);
    const processed = /total_commands_processed:(\d+)/.exec(info)?.[1];
    return {
      postgresCommits: Number(commits.rows[0]!.n),
      redisCommands: Number(processed ?? NaN),
      natsMessagesIn: varz.in_msgs,
      natsMessagesOut: varz.out_msgs,
      at: Date.now(),
    };
  } finally {
    await db.end().catch(() => undefined);
    redis.disconnect();
  }
}

/** Per-second rates between two readings. */
export function sharedTierRates(
  before: SharedTierCounters,
  after: SharedTierCounters,
): { postgresCommitsPerSecond: number; redisCommandsPerSecond: number; natsMessagesPerSecond: number } {
  const seconds = Math.max(0.001, (after.at - before.at) / 1000);
  return {
    postgresCommitsPerSecond: (after.postgresCommits - before.postgresCommits) / seconds,
    redisCommandsPerSecond: (after.redisCommands - before.redisCommands) / seconds,
    natsMessagesPerSecond:
      (after.natsMessagesIn - before.natsMessagesIn + (after.natsMessagesOut - before.natsMessagesOut)) / seconds,
  };
}
