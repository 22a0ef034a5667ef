// The conversation queue against real Postgres and Redis, with a stand-in executor: one run at a
// time per conversation in arrival order, several waiters per run, take-over from a dead holder.
import { getEventListeners } from 'node:events';
import { createLogger, createRedis, type Redis } from '@platform/service-kit';
import { allocateSuiteRedis } from '@platform/testing/vitest';
import type pg from 'pg';
import { Redis as IORedis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunRecords, type ClaimedRun, type NewRun } from '../journal/run-records.js';
import type { RunExecutor as TurnExecutor } from './run-executor.js';
import { ConversationLease } from './conversation-lease.js';
import { ConversationQueue } from './conversation-queue.js';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { answeredResult, messageRun } from '../test-support/run-fixtures.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let pool: pg.Pool;
let redis: Redis;
let records: RunRecords;
let n = 0;

const result = (runId: string) => answeredResult(runId);

/** Runs take a few milliseconds; the log shows starts and ends, to check that none overlap. */
function executor(log: string[]): TurnExecutor {
  return {
    execute: async (run: ClaimedRun) => {
      log.push(`start ${run.runId}`);
      await new Promise((r) => setTimeout(r, 3));
      log.push(`end ${run.runId}`);
      return records.finish(run, 'completed', result(run.runId));
    },
  };
}

function queue(owner: string, log: string[], leaseMs = 5_000, pollIntervalMs = 50): ConversationQueue {
  return new ConversationQueue({
    records,
    lease: new ConversationLease(redis, owner, leaseMs),
    executor: executor(log),
    owner,
    leaseMs,
    pollIntervalMs,
    logger,
  });
}

const message = (conversationId: string): NewRun => messageRun(`run_q${++n}`, conversationId);

async function accept(conversationId: string): Promise<string> {
  const run = message(conversationId);
  await records.create(run);
  return run.runId;
}

beforeAll(async () => {
  pool = await openJournalDatabase('queue', logger, 10);
  records = new RunRecords(pool);
  redis = createRedis({ url: await allocateSuiteRedis(), name: 'queue-test', logger });
});
afterAll(async () => {
  redis.disconnect();
  await pool.end();
});

describe('ConversationQueue', () => {
  it("runs a conversation's runs one at a time in arrival order, while another conversation runs beside them", async () => {
    const log: string[] = [];
    // Waiters never poll here: one drain must carry every run waited for, not only the first.
    const q = queue('o1', log, 5_000, 600_000);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await accept('busy'));
    const other = await accept('other');
    const signal = new AbortController().signal;
    const waits = [...ids, other].map((id) => {
      q.kick('acme', id === other ? 'other' : 'busy');
      return q.waitForRun('acme', id === other ? 'other' : 'busy', id, signal);
    });
    const finished = await Promise.all(waits);
    expect(finished.map((r) => r.status)).toEqual(Array(21).fill('completed'));
    const busy = log.filter((l) => ids.some((id) => l.endsWith(` ${id}`)));
    expect(busy).toEqual(ids.flatMap((id) => [`start ${id}`, `end ${id}`]));
    // The waits shared one signal, and none left a listener on it.
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('answers every waiter of a run (a retry attached beside the first call)', async () => {
    const q = queue('o1', []);
    const id = await accept('twice');
    const signal = new AbortController().signal;
    const first = q.waitForRun('acme', 'twice', id, signal);
    const second = q.waitForRun('acme', 'twice', id, signal);
    q.kick('acme', 'twice');
    expect((await Promise.all([first, second])).map((r) => r.runId)).toEqual([id, id]);
  });

  it('takes over a conversation whose holder died once its leases run out', async () => {
    // A holder that claimed the run and vanished: its Redis lease and the run's lease expire.
    const dead = new ConversationLease(redis, 'dead', 300);
    const held = await dead.acquire('acme', 'orphan');
    const id = await accept('orphan');
    expect((await records.claimNext('acme', 'orphan', 'dead', 300, held!.token)).claimed?.runId).toBe(id);

    const log: string[] = [];
    const q = queue('o2', log);
    q.kick('acme', 'orphan');
    const run = await q.waitForRun('acme', 'orphan', id, new AbortController().signal);
    expect(run.status).toBe('completed');
    expect(log).toEqual([`start ${id}`, `end ${id}`]);
  });

  it('keeps running conversations in order when Redis is down, fenced by Postgres alone', async () => {
    const down = new IORedis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    down.on('error', () => undefined); // expected: nothing listens there
    const log: string[] = [];
    const q = new ConversationQueue({
      records,
      lease: new ConversationLease(down, 'o4', 5_000),
      executor: executor(log),
      owner: 'o4',
      leaseMs: 5_000,
      pollIntervalMs: 600_000,
      logger,
    });
    const ids = [await accept('no-redis'), await accept('no-redis'), await accept('no-redis')];
    const signal = new AbortController().signal;
    const runs = await Promise.all(
      ids.map((id) => (q.kick('acme', 'no-redis'), q.waitForRun('acme', 'no-redis', id, signal))),
    );
    expect(runs.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    expect(log).toEqual(ids.flatMap((id) => [`start ${id}`, `end ${id}`]));
    down.disconnect();
  });

  it('does not poll Postgres for a run while this replica drains its conversation', async () => {
    const log: string[] = [];
    let reads = 0;
    const counting = Object.create(records, {
      get: { value: (tenantId: string, runId: string) => (reads++, records.get(tenantId, runId)) },
    }) as RunRecords;
    const slow = {
      execute: async (run: ClaimedRun) => {
        log.push(`start ${run.runId}`);
        await new Promise((r) => setTimeout(r, 150));
        return records.finish(run, 'completed', result(run.runId));
      },
    } as unknown as TurnExecutor;
    // Waiters wake every 5 ms; each run takes 150 ms.
    const q = new ConversationQueue({
      records: counting,
      lease: new ConversationLease(redis, 'o5', 5_000),
      executor: slow,
      owner: 'o5',
      leaseMs: 5_000,
      pollIntervalMs: 5,
      logger,
    });
    const ids = [await accept('drained-here'), await accept('drained-here')];
    const signal = new AbortController().signal;
    const runs = await Promise.all(
      ids.map((id) => (q.kick('acme', 'drained-here'), q.waitForRun('acme', 'drained-here', id, signal))),
    );
    expect(runs.map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(log).toEqual(ids.map((id) => `start ${id}`));
    expect(reads).toBe(0);
  });

  it('sets no timer for a waiting run while this replica drains its conversation (thousands wait on their model at once)', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const blocked = {
      execute: async (run: ClaimedRun) => {
        await held;
        return records.finish(run, 'completed', result(run.runId));
      },
    } as unknown as TurnExecutor;
    const POLL_MS = 7; // a delay no other timer here uses, to count the waiters' naps by
    const q = new ConversationQueue({
      records,
      lease: new ConversationLease(redis, 'o7', 5_000),
      executor: blocked,
      owner: 'o7',
      leaseMs: 5_000,
      pollIntervalMs: POLL_MS,
      logger,
    });
    const conversations = ['held-1', 'held-2', 'held-3'];
    const ids = await Promise.all(conversations.map((c) => accept(c)));
    const signal = new AbortController().signal;
    const naps = vi.spyOn(globalThis, 'setTimeout');
    try {
      const waits = conversations.map((c, i) => (q.kick('acme', c), q.waitForRun('acme', c, ids[i]!, signal)));
      // Long enough for a waiter that polls every 7 ms to have napped many times.
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(naps.mock.calls.filter(([, ms]) => ms === POLL_MS)).toHaveLength(0);
      release();
      expect((await Promise.all(waits)).map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    } finally {
      naps.mockRestore();
      release();
      await q.idle();
    }
  });

  it('stops waiting (not the run) when the caller gives up', async () => {
    const q = queue('o3', []);
    const id = await accept('impatient');
    const controller = new AbortController();
    const waiting = q.waitForRun('acme', 'impatient', id, controller.signal);
    controller.abort(new Error('caller left'));
    await expect(waiting).rejects.toThrow('caller left');
    q.kick('acme', 'impatient');
    await q.idle();
    expect((await records.get('acme', id))?.status).toBe('completed');
  });

  it('admits messages sent at once to one conversation: each recorded once, run one at a time in arrival order', async () => {
    const log: string[] = [];
    const q = queue('o6', log, 5_000, 600_000);
    const signal = new AbortController().signal;
    const runs = Array.from({ length: 20 }, () => message('admitted'));
    // As the service does: wait first, then admit (the first admission claims in the same statement).
    const waits = runs.map((run) => q.waitForRun('acme', 'admitted', run.runId, signal));
    expect(await Promise.all(runs.map((run) => q.admit(run)))).toEqual(Array(20).fill(true));
    const finished = await Promise.all(waits);
    expect(finished.map((r) => r.status)).toEqual(Array(20).fill('completed'));
    // Arrival order is the order the messages were recorded in (concurrent calls have no other).
    const { rows } = await pool.query<{ run_id: string }>(
      "SELECT run_id FROM runs WHERE conversation_id = 'admitted' ORDER BY created_at, arrival",
    );
    expect(rows).toHaveLength(20);
    expect(log).toEqual(rows.flatMap((row) => [`start ${row.run_id}`, `end ${row.run_id}`]));
  });

  it('admits a message while another replica holds the conversation: recorded queued, run once that holder lets go', async () => {
    const other = new ConversationLease(redis, 'elsewhere', 5_000);
    const held = await other.acquire('acme', 'held-elsewhere');
    const log: string[] = [];
    const q = queue('o7', log, 5_000, 20);
    const run = message('held-elsewhere');
    const waiting = q.waitForRun('acme', 'held-elsewhere', run.runId, new AbortController().signal);
    expect(await q.admit(run)).toBe(true);
    expect(await records.get('acme', run.runId)).toMatchObject({ status: 'queued' });
    expect(log).toEqual([]);
    await held!.release();
    expect((await waiting).status).toBe('completed');
    expect(log).toEqual([`start ${run.runId}`, `end ${run.runId}`]);
  });

  it('tells the caller when its message cannot be recorded, and admits the next one', async () => {
    const q = queue('o8', []);
    const broken = { ...message('refused'), kind: 'no-such-kind' as NewRun['kind'] };
    await expect(q.admit(broken)).rejects.toThrow(/check constraint/);
    const run = message('refused');
    const waiting = q.waitForRun('acme', 'refused', run.runId, new AbortController().signal);
    expect(await q.admit(run)).toBe(true);
    expect((await waiting).status).toBe('completed');
  });

  it('reports an existing run id as not created, and runs nothing twice', async () => {
    const log: string[] = [];
    const q = queue('o9', log);
    const run = message('duplicate');
    const waiting = q.waitForRun('acme', 'duplicate', run.runId, new AbortController().signal);
    expect(await q.admit(run)).toBe(true);
    await waiting;
    expect(await q.admit(run)).toBe(false);
    await q.idle();
    expect(log).toEqual([`start ${run.runId}`, `end ${run.runId}`]);
  });
});
