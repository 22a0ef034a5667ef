// PG_STATEMENTS=1: PostgreSQL's statements per turn over the measured windows (pg_stat_statements,
// reset at each window's start and read at its end, summed over windows) and its write commits per
// turn (each a WAL flush when durable).
import { nextTransactionId, resetStatementStats, statementTable, topStatements, type StatementShare } from '@platform/bench-kit';
import type { PostgresServerHandle } from '@platform/testing';

/** The platform's services all use the cluster's `postgres` database (libs/testing's startInfra). */
const DATABASE = 'postgres';
const TOP = 15;

export class StatementWindows {
  private readonly totals = new Map<string, StatementShare>();
  private turns = 0;
  private commits = 0;
  private startXid = 0;

  constructor(private readonly postgres: PostgresServerHandle) {}

  async begin(): Promise<void> {
    await resetStatementStats(this.postgres);
    this.startXid = await nextTransactionId(this.postgres);
  }

  async end(turns: number): Promise<void> {
    this.commits += (await nextTransactionId(this.postgres)) - this.startXid;
    this.turns += turns;
    for (const s of await topStatements(this.postgres, DATABASE, 200)) {
      const sum = this.totals.get(s.query);
      this.totals.set(s.query, sum ? { ...sum, calls: sum.calls + s.calls, rows: sum.rows + s.rows, totalMs: sum.totalMs + s.totalMs, blocks: sum.blocks + s.blocks, walBytes: sum.walBytes + s.walBytes } : s);
    }
  }

  report(label: string): string[] {
    const all = [...this.totals.values()].sort((a, b) => b.totalMs - a.totalMs);
    const executionMs = all.reduce((sum, s) => sum + s.totalMs, 0);
    const calls = all.reduce((sum, s) => sum + s.calls, 0);
    return [
      `\nPostgreSQL at ${label}, all windows (${this.turns} turns): ${(calls / this.turns).toFixed(2)} statements, ${(this.commits / this.turns).toFixed(2)} write commits (WAL flushes when durable) and ${(executionMs / this.turns).toFixed(3)} ms of execution per turn; the top ${TOP} by execution time:`,
      ...statementTable(all.slice(0, TOP), this.turns),
    ];
  }
}
