// One running run per conversation, held by Postgres itself: claims and admissions that race (two
// replicas while Redis is down hold equal conversation tokens) never leave two runs running. Each
// race is staged with an open transaction that holds the first writer's statement uncommitted
// while the second one starts, the window a single statement's snapshot cannot see into.
import { createLogger, createPgPool, loadMigrations, migrate } from '@platform/service-kit';
import { createSuiteDatabase } from '@platform/testing/vitest';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunRecords } from './run-records.js';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { answeredResult, messageRun } from '../test-support/run-fixtures.js';

let pool: pg.Pool;
let records: RunRecords;
let counter = 0;
const logger = createLogger({ service: 'test', level: 'silent' });

const newRun = (conversationId: string) => messageRun(`run_race_${++counter}`, conversationId);
const result = (runId: string) => answeredResult(runId);

async function runningRuns(conversationId: string): Promise<string[]> {
  const { rows } = await pool.query<{ run_id: string }>(
    "SELECT run_id FROM runs WHERE conversation_id = $1 AND status = 'running' ORDER BY run_id",
    [conversationId],
  );
  return rows.map((r) => r.run_id);
}

/** Journal records whose statements run in one open transaction, committed when the test says. */
async function openTransaction(): Promise<{ records: RunRecords; commit(): Promise<void> }> {
  const client = await pool.connect();
  await client.query('BEGIN');
  return {
    records: new RunRecords(client as unknown as pg.Pool),
    async commit() {
      await client.query('COMMIT');
      client.release();
    },
  };
}

/** Resolves once a statement of this database waits for a lock (the racing writer is blocked). */
async function someoneWaitsForALock(): Promise<void> {
  await vi.waitFor(
    async () => {
      const { rows } = await pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      expect(rows[0]?.n).toBeGreaterThan(0);
    },
    { timeout: 10_000, interval: 10 },
  );
}

beforeAll(async () => {
  pool = await openJournalDatabase('races', logger, 6);
  records = new RunRecords(pool);
});
afterAll(async () => {
  await pool.end();
});

describe('one running run per conversation', () => {
  it('admits two racing messages to an idle conversation as one running and one queued', async () => {
    const first = newRun('admit-race');
    const second = newRun('admit-race');
    const tx = await openTransaction();
    expect((await tx.records.admit(first, 'o1', 10_000, 1)).claimed?.runId).toBe(first.runId);
    // The second starts before the first commits (its snapshot sees an idle conversation) and
    // holds the same token: Redis was down, both replicas took highest + 1 from Postgres.
    const racing = records.admit(second, 'o2', 10_000, 1);
    await someoneWaitsForALock();
    await tx.commit();
    expect(await racing).toEqual({ created: true, claimed: undefined });
    expect(await runningRuns('admit-race')).toEqual([first.runId]);
    expect(await records.get('acme', second.runId)).toMatchObject({ status: 'queued' });
  });

  it('does not claim a queued run while an admission it cannot see yet starts another', async () => {
    const admitted = newRun('claim-race');
    const queued = newRun('claim-race');
    const tx = await openTransaction();
    expect((await tx.records.admit(admitted, 'o1', 10_000, 1)).claimed?.runId).toBe(admitted.runId);
    // A message recorded by a replica without the conversation lease, committed meanwhile.
    await records.create(queued);
    const racing = records.claimNext('acme', 'claim-race', 'o2', 10_000, 1);
    await someoneWaitsForALock();
    await tx.commit();
    expect(await racing).toEqual({ next: admitted.runId, claimed: undefined });
    expect(await runningRuns('claim-race')).toEqual([admitted.runId]);
  });

  it('resumes a running run whose holder died before an older run that appeared late', async () => {
    const running = newRun('late-older');
    const holder = (await records.admit(running, 'o1', 50, 1)).claimed!;
    const late = newRun('late-older');
    await records.create(late);
    await pool.query("UPDATE runs SET created_at = created_at - interval '1 minute' WHERE run_id = $1", [late.runId]);
    await new Promise((r) => setTimeout(r, 80)); // o1's lease runs out
    const resumed = await records.claimNext('acme', 'late-older', 'o2', 10_000, 2);
    expect(resumed).toMatchObject({
      next: running.runId,
      claimed: { runId: running.runId, attempts: 2, epoch: holder.epoch + 1 },
    });
    await records.finish(resumed.claimed!, 'completed', result(running.runId));
    expect((await records.claimNext('acme', 'late-older', 'o2', 10_000, 3)).claimed?.runId).toBe(late.runId);
  });

  it('is kept by the database: a second running run of a conversation is refused', async () => {
    const run = newRun('constraint');
    const other = newRun('constraint');
    await records.admit(run, 'o1', 10_000, 1);
    await records.create(other);
    await expect(
      pool.query("UPDATE runs SET status = 'running' WHERE run_id = $1", [other.runId]),
    ).rejects.toMatchObject({ code: '23505', constraint: 'runs_one_running' });
  });
});

describe('migration 0004 on a database that has two running runs of a conversation', () => {
  it('keeps the oldest running and queues the other, unheld, so they resume one at a time', async () => {
    const db = createPgPool({
      url: await createSuiteDatabase('orchestrator_migration_0004'),
      applicationName: 'migration-0004-test',
      searchPath: 'orchestrator',
      maxConnections: 2,
      logger,
    });
    const all = await loadMigrations(fileURLToPath(new URL('../../migrations', import.meta.url)), 'orchestrator');
    await migrate(
      db,
      'orchestrator',
      all.filter((m) => m.version < 4),
      logger,
    );
    const insert = (runId: string, conversationId: string, secondsAgo: number) =>
      db.query(
        `INSERT INTO runs (run_id, tenant_id, conversation_id, status, created_at, lease_owner, lease_until, lease_epoch, attempts)
         VALUES ($1, 'acme', $2, 'running', now() - $3 * interval '1 second', 'o1', now() + interval '1 minute', 1, 1)`,
        [runId, conversationId, secondsAgo],
      );
    await insert('run_old', 'doubled', 20);
    await insert('run_new', 'doubled', 10);
    await insert('run_alone', 'single', 5);
    await migrate(db, 'orchestrator', all, logger);
    const { rows } = await db.query<{ run_id: string; status: string; lease_owner: string | null }>(
      'SELECT run_id, status, lease_owner FROM runs ORDER BY run_id',
    );
    expect(rows).toEqual([
      { run_id: 'run_alone', status: 'running', lease_owner: 'o1' },
      { run_id: 'run_new', status: 'queued', lease_owner: null },
      { run_id: 'run_old', status: 'running', lease_owner: 'o1' },
    ]);
    await db.end();
  });
});
