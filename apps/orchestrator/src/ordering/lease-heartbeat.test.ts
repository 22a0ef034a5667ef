// The replica's lease heartbeat against real Postgres and Redis: one statement and one Redis round
// trip per interval for every run in flight, one timer, and each run's guarantees kept (fencing,
// take-over after a lapse, cancellation seen, a finished run no longer renewed).
import { createLogger, createRedis, type Redis } from '@platform/service-kit';
import { allocateSuiteRedis } from '@platform/testing/vitest';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunLeaseRenewal } from '../journal/run-lease-renewal.js';
import { RunRecords, type ClaimedRun } from '../journal/run-records.js';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { answeredResult, messageRun } from '../test-support/run-fixtures.js';
import { ConversationLease, type HeldLease } from './conversation-lease.js';
import { LeaseHeartbeat, type HeartbeatRun } from './lease-heartbeat.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let pool: pg.Pool;
let redis: Redis;
let records: RunRecords;
let n = 0;
/** Statements sent through `pool` (every query of the heartbeat goes through it). */
let statements = 0;
/** Redis round trips the leases made: pipelines and single commands. */
const redisTrips = { pipelines: 0, evals: 0 };

beforeAll(async () => {
  pool = await openJournalDatabase('heartbeat', logger, 5);
  const query = pool.query.bind(pool);
  pool.query = ((...args: Parameters<typeof query>) => {
    statements++;
    return query(...args);
  }) as typeof pool.query;
  records = new RunRecords(pool);
  redis = createRedis({ url: await allocateSuiteRedis(), name: 'heartbeat-test', logger });
  const pipeline = redis.pipeline.bind(redis);
  redis.pipeline = (...args: Parameters<typeof pipeline>) => (redisTrips.pipelines++, pipeline(...args));
  const evaluate = redis.eval.bind(redis);
  redis.eval = ((...args: Parameters<typeof evaluate>) => (redisTrips.evals++, evaluate(...args))) as typeof redis.eval;
});
afterAll(async () => {
  redis.disconnect();
  await pool.end();
});

interface InFlight {
  claimed: ClaimedRun;
  held: HeldLease;
  entry: HeartbeatRun;
  lost: Error[];
  cancels: number;
}

/** Runs `count` runs in flight for `owner`, each in its own conversation, claimed under its conversation lease. */
async function inFlight(owner: string, count: number, leaseMs: number): Promise<InFlight[]> {
  const leases = new ConversationLease(redis, owner, leaseMs);
  const runs: InFlight[] = [];
  for (let i = 0; i < count; i++) {
    const run = messageRun(`run_hb${++n}`, `hb-c${n}`);
    const held = (await leases.acquire(run.tenantId, run.conversationId))!;
    const { claimed } = await records.admit(run, owner, leaseMs, held.token);
    const lost: Error[] = [];
    const state = { claimed: claimed!, held, lost, cancels: 0 } as InFlight;
    state.entry = {
      run: claimed!,
      lease: held,
      onLost: (e) => lost.push(e),
      onCancelRequested: () => state.cancels++,
      onInterruptRequested: () => undefined,
    };
    runs.push(state);
  }
  return runs;
}

function heartbeat(owner: string, leaseMs: number, intervalMs = 600_000): LeaseHeartbeat {
  return new LeaseHeartbeat({
    runLeases: new RunLeaseRenewal(pool),
    conversationLeases: new ConversationLease(redis, owner, leaseMs),
    owner,
    leaseMs,
    intervalMs,
    logger,
  });
}

const leaseUntil = async (runId: string) =>
  (await pool.query<{ lease_until: Date | null }>('SELECT lease_until FROM runs WHERE run_id = $1', [runId])).rows[0]!
    .lease_until;
const redisTtl = (held: { key?: string }) => redis.pttl(held.key!);
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('LeaseHeartbeat', () => {
  it.each([1, 50])(
    'renews %i runs in flight with one statement and one Redis round trip per interval',
    async (count) => {
      const runs = await inFlight('hb-o1', count, 2_000);
      const beat = heartbeat('hb-o1', 60_000);
      const untrack = runs.map((r) => beat.track(r.entry));
      const before = await Promise.all(runs.map((r) => leaseUntil(r.claimed.runId)));
      statements = 0;
      redisTrips.pipelines = 0;
      redisTrips.evals = 0;
      for (let tick = 0; tick < 3; tick++) await beat.tick();
      expect(statements).toBe(3);
      expect(redisTrips).toEqual({ pipelines: 3, evals: 0 });
      // Every run's lease was really extended, in Postgres and in Redis, and none was lost.
      const after = await Promise.all(runs.map((r) => leaseUntil(r.claimed.runId)));
      after.forEach((until, i) => expect(until!.getTime()).toBeGreaterThan(before[i]!.getTime() + 30_000));
      for (const r of runs) expect(await redisTtl(r.held as { key?: string })).toBeGreaterThan(30_000);
      expect(runs.flatMap((r) => r.lost)).toEqual([]);
      for (const stop of untrack) stop();
    },
  );

  it('keeps one replica-wide timer however many runs are tracked, and none once they ended', async () => {
    const runs = await inFlight('hb-o2', 20, 5_000);
    const beat = heartbeat('hb-o2', 5_000);
    const idle = timers();
    const untrack = runs.map((r) => beat.track(r.entry));
    expect(timers() - idle).toBe(1);
    expect([beat.size, beat.running]).toEqual([20, true]);
    for (const stop of untrack) stop();
    expect(timers()).toBe(idle);
    expect([beat.size, beat.running]).toEqual([0, false]);
  });

  it('stops renewing a run that finished, and reports nothing for it', async () => {
    const [done, going] = await inFlight('hb-o3', 2, 5_000);
    const beat = heartbeat('hb-o3', 60_000);
    const stopDone = beat.track(done!.entry);
    const stopGoing = beat.track(going!.entry);
    await records.finish(done!.claimed, 'completed', answeredResult(done!.claimed.runId));
    stopDone();
    await beat.tick();
    expect(await leaseUntil(done!.claimed.runId)).toBeNull();
    expect((await leaseUntil(going!.claimed.runId))!.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect([done!.lost, going!.lost]).toEqual([[], []]);
    stopGoing();
  });

  it('tells a run its lease is lost once another replica took it over after a lapse, and keeps the others', async () => {
    const [taken, kept] = await inFlight('hb-o4', 2, 200);
    const beat = heartbeat('hb-o4', 200);
    const stops = [beat.track(taken!.entry), beat.track(kept!.entry)];
    await beat.tick();
    // The replica stalls past the lease of `taken`; another claims it (a higher epoch, its own owner).
    await pool.query("UPDATE runs SET lease_until = now() - interval '1 second' WHERE run_id = $1", [
      taken!.claimed.runId,
    ]);
    await redis.del((taken!.held as { key?: string }).key!);
    const otherLease = await new ConversationLease(redis, 'hb-other', 5_000).acquire(
      taken!.claimed.tenantId,
      taken!.claimed.conversationId,
    );
    const retaken = await records.claimNext(
      taken!.claimed.tenantId,
      taken!.claimed.conversationId,
      'hb-other',
      5_000,
      otherLease!.token,
    );
    expect(retaken.claimed?.epoch).toBeGreaterThan(taken!.claimed.epoch);
    await beat.tick();
    expect(taken!.lost).toHaveLength(1);
    expect(kept!.lost).toEqual([]);
    // The old holder's renewal did not extend the new holder's lease (fencing by owner and epoch).
    const row = (
      await pool.query<{ lease_owner: string; lease_epoch: number }>(
        'SELECT lease_owner, lease_epoch FROM runs WHERE run_id = $1',
        [taken!.claimed.runId],
      )
    ).rows[0];
    expect(row).toEqual({ lease_owner: 'hb-other', lease_epoch: retaken.claimed!.epoch });
    for (const stop of stops) stop();
  });

  it('passes a cancellation requested meanwhile to its run only', async () => {
    const [cancelled, other] = await inFlight('hb-o5', 2, 5_000);
    const beat = heartbeat('hb-o5', 5_000);
    const stops = [beat.track(cancelled!.entry), beat.track(other!.entry)];
    await records.requestCancel('acme', cancelled!.claimed.runId, (r) => answeredResult(r.runId));
    await beat.tick();
    expect([cancelled!.cancels, other!.cancels]).toEqual([1, 0]);
    for (const stop of stops) stop();
  });

  it('tells every run its lease is lost when the renewal statement fails, as a failed renewal always did', async () => {
    const runs = await inFlight('hb-o6', 3, 5_000);
    const broken = new LeaseHeartbeat({
      runLeases: { renewAll: () => Promise.reject(new Error('connection terminated')) } as unknown as RunLeaseRenewal,
      conversationLeases: new ConversationLease(redis, 'hb-o6', 5_000),
      owner: 'hb-o6',
      leaseMs: 5_000,
      intervalMs: 600_000,
      logger,
    });
    const stops = runs.map((r) => broken.track(r.entry));
    await broken.tick();
    expect(runs.map((r) => r.lost.map((e) => e.message))).toEqual([
      ['connection terminated'],
      ['connection terminated'],
      ['connection terminated'],
    ]);
    for (const stop of stops) stop();
  });
});
