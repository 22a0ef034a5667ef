// What the durable peers persist to: the bench's own PostgreSQL (the platform's, started `durable`
// unless BENCH_POSTGRES=fast: fsync, synchronous_commit and full_page_writes on), one database per
// peer so each one's tables hold only its own turns.
import type { PostgresDurability, PostgresServerHandle } from '@platform/testing';
import { cpuOfTree } from '@platform/bench-kit';
import pg from 'pg';

export interface DurableStore {
  readonly durability: PostgresDurability;
  /** Creates an empty database on the bench's PostgreSQL and returns its connection string. */
  createDatabase(name: string): Promise<string>;
  /** CPU ms so far of the PostgreSQL server and its backends (the platform's idle polling included). */
  postgresCpuMs(): Promise<number>;
}

export function durableStoreOf(postgres: PostgresServerHandle): DurableStore {
  return {
    durability: postgres.durability,
    createDatabase: (name) => postgres.createDatabase(name),
    async postgresCpuMs() {
      const pid = postgres.pid;
      if (pid === undefined) throw new Error('the bench PostgreSQL is not running');
      return cpuOfTree(pid);
    },
  };
}

/** One query on a short-lived connection: the persistence checks run once, after the run. */
export async function queryRows<Row>(url: string, sql: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as Row[];
  } finally {
    await client.end();
  }
}
