// pg_stat_statements for benches: which statements took a private PostgreSQL's time in a window
// (execution and planning, blocks, WAL), how many writing transactions committed, and which
// sessions PostgreSQL's CPU served.
import pg from 'pg';
import type { PostgresServerHandle } from '@platform/testing';
import { sampleProcess } from './process-usage.js';

/** One statement's share of a window, from pg_stat_statements. */
export interface StatementShare {
  query: string;
  calls: number;
  rows: number;
  totalMs: number;
  /** Planning time (ms): statements sent unprepared, or prepared ones planned again (custom plans). */
  planMs: number;
  /** Shared buffers hit and read (blocks). */
  blocks: number;
  walBytes: number;
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

/** Preloads pg_stat_statements (a restart: call it before any service connects) and creates its view; statements of functions count too. */
export async function enableStatementStats(postgres: PostgresServerHandle): Promise<void> {
  await withClient(postgres.url(), (c) => c.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`));
  await postgres.halt();
  await postgres.start();
  await withClient(postgres.url(), async (c) => {
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await c.query(`ALTER SYSTEM SET pg_stat_statements.track = 'all'`);
    await c.query(`ALTER SYSTEM SET pg_stat_statements.track_planning = on`);
    await c.query('SELECT pg_reload_conf()');
  });
}

export async function resetStatementStats(postgres: PostgresServerHandle): Promise<void> {
  await withClient(postgres.url(), (c) => c.query('SELECT pg_stat_statements_reset()'));
}

/** The statements of `database` that took the most execution time since the last reset. */
export async function topStatements(
  postgres: PostgresServerHandle,
  database: string,
  limit: number,
): Promise<StatementShare[]> {
  return withClient(postgres.url(), async (c) => {
    const { rows } = await c.query<{
      query: string;
      calls: string;
      rows: string;
      total_ms: number;
      plan_ms: number;
      blocks: string;
      wal_bytes: string;
    }>(
      `SELECT left(regexp_replace(s.query, '\\s+', ' ', 'g'), 160) AS query, s.calls, s.rows, s.total_exec_time AS total_ms, s.total_plan_time AS plan_ms,
              s.shared_blks_hit + s.shared_blks_read AS blocks, s.wal_bytes
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 ORDER BY s.total_exec_time DESC LIMIT $2`,
      [database, limit],
    );
    return rows.map((r) => ({
      query: r.query,
      calls: Number(r.calls),
      rows: Number(r.rows),
      totalMs: r.total_ms,
      planMs: r.plan_ms,
      blocks: Number(r.blocks),
      walBytes: Number(r.wal_bytes),
    }));
  });
}

/**
 * The cluster's next transaction id. Only transactions that write are given one, and each of them
 * waits for a WAL flush at commit when durable: the difference over a window counts the write
 * commits, exactly and at once (pg_stat_database's counters reach shared memory up to seconds late).
 */
export async function nextTransactionId(postgres: PostgresServerHandle): Promise<number> {
  return withClient(postgres.url(), async (c) => {
    const { rows } = await c.query<{ next: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next');
    return Number(rows[0]!.next);
  });
}

/**
 * CPU so far (ms) of each PostgreSQL process: client sessions by application name (the services
 * set theirs), the others by backend type (autovacuum worker, walwriter, checkpointer, ...) and the
 * postmaster. Diff two of them to see which clients a window's PostgreSQL CPU served.
 */
export async function postgresProcessCpu(
  postgres: PostgresServerHandle,
): Promise<Map<number, { who: string; cpuMs: number }>> {
  const sessions = await withClient(postgres.url(), async (c) => {
    const { rows } = await c.query<{ pid: number; who: string }>(
      `SELECT pid, coalesce(nullif(application_name, ''), backend_type) AS who FROM pg_stat_activity WHERE pid <> pg_backend_pid()`,
    );
    return rows;
  });
  if (postgres.pid !== undefined) sessions.push({ pid: postgres.pid, who: 'postmaster' });
  const cpu = new Map<number, { who: string; cpuMs: number }>();
  await Promise.all(
    sessions.map(async ({ pid, who }) => {
      const sample = await sampleProcess(pid).catch(() => undefined); // the session ended meanwhile
      if (sample) cpu.set(pid, { who, cpuMs: sample.cpuMs });
    }),
  );
  return cpu;
}

/** The statements as a markdown table, per turn (calls, rows, ms, blocks, WAL bytes), largest total time first. */
export function statementTable(statements: readonly StatementShare[], turns: number): string[] {
  const fmt = (n: number, digits: number): string => (n / turns).toFixed(digits);
  return [
    '| statement | calls / turn | rows / turn | execution ms / turn | planning ms / turn | blocks / turn | WAL bytes / turn |',
    '|---|---|---|---|---|---|---|',
    ...statements.map(
      (s) =>
        `| \`${s.query.replaceAll('|', '\\|')}\` | ${fmt(s.calls, 2)} | ${fmt(s.rows, 2)} | ${fmt(s.totalMs, 3)} | ${fmt(s.planMs, 3)} | ${fmt(s.blocks, 1)} | ${fmt(s.walBytes, 0)} |`,
    ),
  ];
}
