// pg_stat_statements for benches: which statements took a private PostgreSQL's time in a window.
import pg from 'pg';
import type { PostgresServerHandle } from '@platform/testing';

/** One statement's share of a burst, from pg_stat_statements. */
export interface StatementShare {
  query: string;
  calls: number;
  rows: number;
  totalMs: number;
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Preloads pg_stat_statements (a restart: call before anything connects) and creates its view; statements of functions count too. */
export async function enableStatementStats(postgres: PostgresServerHandle): Promise<void> {
  await withClient(postgres.url(), (c) => c.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`));
  await postgres.halt();
  await postgres.start();
  await withClient(postgres.url(), async (c) => {
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await c.query(`ALTER SYSTEM SET pg_stat_statements.track = 'all'`);
    await c.query('SELECT pg_reload_conf()');
  });
}

export async function resetStatementStats(postgres: PostgresServerHandle): Promise<void> {
  await withClient(postgres.url(), (c) => c.query('SELECT pg_stat_statements_reset()'));
}

/** The statements of `database` that took the most execution time since the last reset. */
export async function topStatements(postgres: PostgresServerHandle, database: string, limit: number): Promise<StatementShare[]> {
  return withClient(postgres.url(), async (c) => {
    const { rows } = await c.query<{ query: string; calls: string; rows: string; total_ms: number }>(
      `SELECT left(regexp_replace(s.query, '\\s+', ' ', 'g'), 120) AS query, s.calls, s.rows, s.total_exec_time AS total_ms
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 ORDER BY s.total_exec_time DESC LIMIT $2`,
      [database, limit],
    );
    return rows.map((r) => ({ query: r.query, calls: Number(r.calls), rows: Number(r.rows), totalMs: r.total_ms }));
  });
}
