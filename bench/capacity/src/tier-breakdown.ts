// Where the shared tier's work goes, for the phase reports: rows written per PostgreSQL table
// (pg_stat_user_tables), Redis commands by name (INFO commandstats) and NATS messages per client
// connection (nats-server's /connz, by connection name). Two readings' difference says which
// table, command or service a rate comes from.
import { Redis } from 'ioredis';
import pg from 'pg';

export interface TierBreakdown {
  /** `schema.table` -> rows inserted + updated + deleted so far. */
  tableWrites: Map<string, number>;
  /** Redis command -> calls so far. */
  redisCalls: Map<string, number>;
  /** NATS connection name -> messages in + out so far (connections that closed meanwhile are not counted). */
  natsMessages: Map<string, number>;
}

export async function readTierBreakdown(endpoints: {
  postgresUrl: string;
  redisUrl: string;
  natsMonitorUrl: string;
}): Promise<TierBreakdown> {
  const db = new pg.Client({ connectionString: endpoints.postgresUrl });
  const redis = new Redis(endpoints.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await db.connect();
    await redis.connect();
    const [tables, stats, connz] = await Promise.all([
      db.query<{ name: string; n: string }>(
        `SELECT schemaname || '.' || relname AS name, n_tup_ins + n_tup_upd + n_tup_del AS n FROM pg_stat_user_tables`,
      ),
      redis.info('commandstats'),
      fetch(`${endpoints.natsMonitorUrl}/connz?limit=100000`).then(
        async (r) => (await r.json()) as { connections?: Array<{ name?: string; in_msgs: number; out_msgs: number }> },
      ),
    ]);
    const redisCalls = new Map<string, number>();
    for (const match of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) redisCalls.set(match[1]!, Number(match[2]));
    const natsMessages = new Map<string, number>();
    for (const c of connz.connections ?? []) {
      const name = c.name || '(unnamed)';
      natsMessages.set(name, (natsMessages.get(name) ?? 0) + c.in_msgs + c.out_msgs);
    }
    return {
      tableWrites: new Map(tables.rows.map((r) => [r.name, Number(r.n)])),
      redisCalls,
      natsMessages,
    };
  } finally {
    await db.end().catch(() => undefined);
    redis.disconnect();
  }
}

/** The largest per-second rates between two readings, as `name rate/s` items (at most `top` per kind). */
export function breakdownRates(before: TierBreakdown, after: TierBreakdown, seconds: number, top = 6): string {
  const rates = (a: Map<string, number>, b: Map<string, number>): string =>
    [...b]
      .map(([name, n]) => [name, (n - (a.get(name) ?? 0)) / Math.max(0.001, seconds)] as const)
      .filter(([, rate]) => rate >= 0.05)
      .sort((x, y) => y[1] - x[1])
      .slice(0, top)
      .map(([name, rate]) => `${name} ${rate.toFixed(1)}`)
      .join(', ') || 'none';
  return (
    `  - PostgreSQL rows written/s by table: ${rates(before.tableWrites, after.tableWrites)}\n` +
    `  - Redis calls/s by command: ${rates(before.redisCalls, after.redisCalls)}\n` +
    `  - NATS messages/s by connection: ${rates(before.natsMessages, after.natsMessages)}\n`
  );
}
