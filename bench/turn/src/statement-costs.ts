// Optional (PG_STATEMENTS=1): pg_stat_statements on the A/B's shared PostgreSQL, printed per
// database at the end, so the two variants' statements can be compared per turn.
import { topStatements } from '@platform/bench-kit';
import type { PostgresServerHandle } from '@platform/testing';

/** Prints the database's top statements by execution time, per turn. */
export async function printStatementCosts(
  postgres: PostgresServerHandle,
  database: string,
  label: string,
  turns: number,
  top = 10,
): Promise<void> {
  const statements = await topStatements(postgres, database, top);
  process.stdout.write(`\n${label}: top statements per turn (calls, rows, exec ms) over ${turns} turns\n`);
  for (const s of statements)
    process.stdout.write(
      `${(s.calls / turns).toFixed(2).padStart(7)} ${(s.rows / turns).toFixed(2).padStart(8)} ${(s.totalMs / turns).toFixed(3).padStart(7)}  ${s.query}\n`,
    );
}
