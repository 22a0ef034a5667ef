// Optional (PG_STATEMENTS=1): pg_stat_statements on the A/B's shared PostgreSQL, printed per
// database at the end, so the two variants' statements can be compared per turn.
import type { PostgresServerHandle } from '@platform/testing';
import pg from 'pg';

/** Preloads pg_stat_statements (a restart) and creates its view; call before anything connects. */
export async function enableStatementStats(postgres: PostgresServerHandle): Promise<void> {
  const setup = new pg.Client({ connectionString: postgres.url() });
  setup.on('error', () => undefined);
  await setup.connect();
  await setup.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
  await setup.end();
  await postgres.halt();
  await postgres.start();
  const admin = new pg.Client({ connectionString: postgres.url() });
  await admin.connect();
  try {
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await admin.query(`ALTER SYSTEM SET pg_stat_statements.track = 'all'`);
    await admin.query('SELECT pg_reload_conf()');
  } finally {
    await admin.end();
  }
}

/** Prints the database's top statements by execution time, per turn. */
export async function printStatementCosts(postgres: PostgresServerHandle, database: string, label: string, turns: number, top = 10): Promise<void> {
  const admin = new pg.Client({ connectionString: postgres.url() });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ query: string; calls: string; rows: string; total_ms: number }>(
      `SELECT left(regexp_replace(s.query, '\\s+', ' ', 'g'), 110) AS query, s.calls, s.rows, s.total_exec_time AS total_ms
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 ORDER BY s.total_exec_time DESC LIMIT $2`,
      [database, top],
    );
    process.stdout.write(`\n${label}: top statements per turn (calls, rows, exec ms) over ${turns} turns\n`);
    for (const r of rows) process.stdout.write(`${(Number(r.calls) / turns).toFixed(2).padStart(7)} ${(Number(r.rows) / turns).toFixed(2).padStart(8)} ${(r.total_ms / turns).toFixed(3).padStart(7)}  ${r.query}\n`);
  } finally {
    await admin.end();
  }
}
