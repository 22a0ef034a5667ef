// PG_STATEMENTS=1: PostgreSQL's statements per turn over the measured windows (pg_stat_statements,
// reset at each window's start and read at its end, summed over windows) and its write commits per
// turn (each a WAL flush when durable).
import {
  nextTransactionId,
  postgresProcessCpu,
  resetStatementStats,
  statementTable,
  topStatements,
  type StatementShare,
} from '@platform/bench-kit';
import type { PostgresServerHandle } from '@platform/testing';

/** The platform's services all use the cluster's `postgres` database (libs/testing's startInfra). */
const DATABASE = 'postgres';
const TOP = Number(process.env['PG_STATEMENTS_TOP'] ?? 15);

export class StatementWindows {
  private readonly totals = new Map<string, StatementShare>();
  private turns = 0;
  private commits = 0;
  private startXid = 0;
  private startCpu = new Map<number, { who: string; cpuMs: number }>();
  /** PostgreSQL CPU (ms) over the windows by session (application name) or background process. */
  private readonly cpuByWho = new Map<string, number>();

  constructor(private readonly postgres: PostgresServerHandle) {}

  async begin(): Promise<void> {
    await resetStatementStats(this.postgres);
    this.startXid = await nextTransactionId(this.postgres);
    this.startCpu = await postgresProcessCpu(this.postgres);
  }

  async end(turns: number): Promise<void> {
    this.commits += (await nextTransactionId(this.postgres)) - this.startXid;
    // A process that started during the window counts whole; one that ended in it is missed.
    for (const [pid, { who, cpuMs }] of await postgresProcessCpu(this.postgres)) {
      const before = this.startCpu.get(pid)?.cpuMs ?? 0;
      this.cpuByWho.set(who, (this.cpuByWho.get(who) ?? 0) + cpuMs - before);
    }
    this.turns += turns;
    for (const s of await topStatements(this.postgres, DATABASE, 200)) {
      const sum = this.totals.get(s.query);
      this.totals.set(
        s.query,
        sum
          ? {
              ...sum,
              calls: sum.calls + s.calls,
              rows: sum.rows + s.rows,
              totalMs: sum.totalMs + s.totalMs,
              planMs: sum.planMs + s.planMs,
              blocks: sum.blocks + s.blocks,
              walBytes: sum.walBytes + s.walBytes,
            }
          : s,
      );
    }
  }

  report(label: string): string[] {
    const all = [...this.totals.values()].sort((a, b) => b.totalMs - a.totalMs);
    const executionMs = all.reduce((sum, s) => sum + s.totalMs, 0);
    const calls = all.reduce((sum, s) => sum + s.calls, 0);
    const planningMs = all.reduce((sum, s) => sum + s.planMs, 0);
    return [
      `\nPostgreSQL at ${label}, all windows (${this.turns} turns): ${(calls / this.turns).toFixed(2)} statements, ${(this.commits / this.turns).toFixed(2)} write commits (WAL flushes when durable), ${(executionMs / this.turns).toFixed(3)} ms of execution and ${(planningMs / this.turns).toFixed(3)} ms of planning per turn; the top ${TOP} by execution time:`,
      ...statementTable(all.slice(0, TOP), this.turns),
      `\nPostgreSQL CPU per turn at ${label} by session (application name) or background process (/proc; 10 ms ticks per process):`,
      '| session or process | CPU ms per turn |',
      '|---|---|',
      ...[...this.cpuByWho]
        .filter(([, ms]) => ms > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([who, ms]) => `| ${who} | ${(ms / this.turns).toFixed(2)} |`),
    ];
  }
}
