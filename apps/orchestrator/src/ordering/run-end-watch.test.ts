// Two replicas of the conversation queue over real Postgres, Redis and NATS: a request waiting on
// one replica for a run the other drains is told at once by the run-ended notice, not by its poll
// (set to ten minutes here, so a wait that needed it would not end within the test).
import { RUN_ENDED_SUBJECT_PREFIX } from '@platform/contracts';
import { connectNats, createLogger, createRedis, type NatsConnection, type Redis } from '@platform/service-kit';
import { allocateSuiteRedis, sharedInfra } from '@platform/testing/vitest';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunRecords, type ClaimedRun, type NewRun } from '../journal/run-records.js';
import { RunEndPublisher } from '../events/publish-run-end.js';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { answeredResult, messageRun } from '../test-support/run-fixtures.js';
import type { RunExecutor as TurnExecutor } from './run-executor.js';
import { ConversationLease } from './conversation-lease.js';
import { ConversationQueue } from './conversation-queue.js';
import { RunEndWatch } from './run-end-watch.js';

const logger = createLogger({ service: 'test', level: 'silent' });
const NEVER_POLL_MS = 600_000;
let pool: pg.Pool;
let redis: Redis;
let nc: NatsConnection;
let records: RunRecords;
let n = 0;
const watches: RunEndWatch[] = [];

beforeAll(async () => {
  pool = await openJournalDatabase('run_end_watch', logger, 10);
  records = new RunRecords(pool);
  redis = createRedis({ url: await allocateSuiteRedis(), name: 'run-end-watch-test', logger });
  nc = await connectNats({ servers: sharedInfra().natsUrl, name: 'run-end-watch-test', logger });
});
afterAll(async () => {
  await Promise.all(watches.map((w) => w.stop()));
  await nc.close();
  redis.disconnect();
  await pool.end();
});

/** A conversation lease whose release takes a while (a slow Redis round trip), to show what a notice sent before it would cause. */
class SlowReleaseLease extends ConversationLease {
  override async releaseKey(key: string, value: string): Promise<void> {
    await new Promise((r) => setTimeout(r, 200));
    await super.releaseKey(key, value);
  }
}

/** A replica: its queue (runs take `runMs`, logged as `<owner> <runId>`), announcing run ends and watching the others'. */
async function replica(owner: string, log: string[], runMs = 5, slowRelease = false): Promise<ConversationQueue> {
  const executor = {
    execute: async (run: ClaimedRun) => {
      log.push(`${owner} ${run.runId}`);
      await new Promise((r) => setTimeout(r, runMs));
      return records.finish(run, 'completed', answeredResult(run.runId));
    },
  } as unknown as TurnExecutor;
  const queue = new ConversationQueue({
    records,
    lease: slowRelease ? new SlowReleaseLease(redis, owner, 5_000) : new ConversationLease(redis, owner, 5_000),
    executor,
    owner,
    leaseMs: 5_000,
    pollIntervalMs: NEVER_POLL_MS,
    runEnds: new RunEndPublisher(nc, logger),
    logger,
  });
  const watch = new RunEndWatch(nc, queue, logger);
  watch.start();
  watches.push(watch);
  await nc.flush();
  return queue;
}

const message = (conversationId: string): NewRun => messageRun(`run_w${++n}_${Date.now()}`, conversationId);
const signal = new AbortController().signal;

describe('RunEndWatch', () => {
  it('answers a request waiting here for a run another replica drained, as soon as that replica announces it', async () => {
    const log: string[] = [];
    const [a, b] = [await replica('w-a1', log, 50), await replica('w-b1', log)];
    const run = message('told-at-once');
    const onA = a.waitForRun('acme', 'told-at-once', run.runId, signal);
    expect(await a.admit(run)).toBe(true);
    // The same run waited for on the other replica (e.g. the api attached there again).
    const onB = b.waitForRun('acme', 'told-at-once', run.runId, signal);
    expect((await onA).status).toBe('completed');
    expect((await onB).status).toBe('completed');
    expect(log).toEqual([`w-a1 ${run.runId}`]);
  });

  it('lets the other replica take the conversation over at once when the holder lets go: the notice follows the release', async () => {
    const log: string[] = [];
    // The holder's release is slow: a notice sent before it would find the lease still held, and
    // the other replica would then wait for its poll.
    const [a, b] = [await replica('w-a2', log, 50, true), await replica('w-b2', log)];
    const first = message('handed-on');
    const onA = a.waitForRun('acme', 'handed-on', first.runId, signal);
    expect(await a.admit(first)).toBe(true);
    // A message for the same conversation reaches the other replica while the first runs: queued there.
    const second = message('handed-on');
    const onB = b.waitForRun('acme', 'handed-on', second.runId, signal);
    expect(await b.admit(second)).toBe(true);
    expect((await records.get('acme', second.runId))?.status).toBe('queued');
    await onA;
    // Nobody on the first replica waits for the second run: the second replica runs it, woken by the notice.
    expect((await onB).status).toBe('completed');
    expect(log).toEqual([`w-a2 ${first.runId}`, `w-b2 ${second.runId}`]);
  });

  it('reads no notice while nothing here waits on another replica, and survives a malformed one', async () => {
    const log: string[] = [];
    const b = await replica('w-b3', log);
    expect(b.waitsElsewhere).toBe(false);
    const run = message('after-garbage');
    await records.create(run);
    const waiting = b.waitForRun('acme', 'after-garbage', run.runId, signal);
    expect(b.waitsElsewhere).toBe(true);
    nc.publish(`${RUN_ENDED_SUBJECT_PREFIX}.acme`, 'not json');
    // The run finishes elsewhere (a replica that is gone), then its notice arrives.
    const lease = await new ConversationLease(redis, 'w-gone', 5_000).acquire('acme', 'after-garbage');
    const { claimed } = await records.claimNext('acme', 'after-garbage', 'w-gone', 5_000, lease!.token);
    await records.finish(claimed!, 'completed', answeredResult(run.runId));
    await lease!.release();
    new RunEndPublisher(nc, logger).announce({
      tenantId: 'acme',
      conversationId: 'after-garbage',
      runId: run.runId,
      stopReason: 'final_answer',
    });
    expect((await waiting).status).toBe('completed');
    expect(log).toEqual([]);
  });
});
