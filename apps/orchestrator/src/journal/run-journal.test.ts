// The run journal against a real Postgres: claiming, fencing, steps, cancellation, recovery.
import { createLogger } from '@platform/service-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseLostError, RunRecords } from './run-records.js';
import { RunSteps } from './run-steps.js';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { answeredResult, messageRun } from '../test-support/run-fixtures.js';

let pool: pg.Pool;
let records: RunRecords;
let steps: RunSteps;
const logger = createLogger({ service: 'test', level: 'silent' });
let counter = 0;

const newRun = (conversationId = `c-${++counter}`, tenantId = 'acme') =>
  messageRun(`run_${++counter}_${Date.now()}`, conversationId, tenantId);
/** Claims the conversation's oldest live run (the run given is expected to be it). */
const claim = async (
  run: { tenantId: string; conversationId: string },
  owner: string,
  leaseMs: number,
  token: number,
) => (await records.claimNext(run.tenantId, run.conversationId, owner, leaseMs, token)).claimed;
const result = (runId: string) => answeredResult(runId, { inputTokens: 7, outputTokens: 3 });
const response = {
  message: { role: 'assistant' as const, content: 'hi' },
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  finishReason: 'stop' as const,
};

beforeAll(async () => {
  pool = await openJournalDatabase('journal', logger, 5);
  records = new RunRecords(pool);
  steps = new RunSteps(pool);
});
afterAll(async () => {
  await pool.end();
});

describe('accepting and claiming runs', () => {
  it('records a message once per run id and keeps runs of a conversation in arrival order', async () => {
    const a = newRun('ordered');
    const b = { ...newRun('ordered'), conversationId: 'ordered' };
    expect(await records.create(a)).toBe(true);
    expect(await records.create(a)).toBe(false);
    await records.create(b);
    const first = await records.claimNext('acme', 'ordered', 'o1', 10_000, 1);
    expect(first).toMatchObject({ next: a.runId, claimed: { runId: a.runId } });
    // While a runs, b waits: the next live run is still a, held by o1.
    expect(await records.claimNext('acme', 'ordered', 'o2', 10_000, 2)).toEqual({ next: a.runId, claimed: undefined });
    await records.finish(first.claimed!, 'completed', result(a.runId));
    expect((await records.claimNext('acme', 'ordered', 'o1', 10_000, 3)).claimed?.runId).toBe(b.runId);
  });

  it('never claims a run while another run of the conversation runs under a live lease, even an older run that appeared late', async () => {
    const running = newRun('late-insert');
    await records.create(running);
    const first = await claim(running, 'o1', 10_000, 1);
    expect(first?.runId).toBe(running.runId);
    // A run accepted earlier whose insert committed only now (so it is older than the running one).
    const late = { ...newRun('late-insert'), conversationId: 'late-insert' };
    await records.create(late);
    await pool.query("UPDATE runs SET created_at = created_at - interval '1 minute' WHERE run_id = $1", [late.runId]);
    // Another holder, with a higher token (e.g. Redis down, tokens from Postgres), must not start
    // it: the running run comes first, and its holder is alive.
    expect(await records.claimNext('acme', 'late-insert', 'o2', 10_000, 2)).toEqual({
      next: running.runId,
      claimed: undefined,
    });
    await records.finish(first!, 'completed', result(running.runId));
    expect((await records.claimNext('acme', 'late-insert', 'o2', 10_000, 3)).claimed?.runId).toBe(late.runId);
  });

  it('admits a message to an idle conversation already claimed, in one statement, exactly like a claim', async () => {
    const run = { ...newRun(), approval: { approvalId: 'ap-1', decision: 'approve' as const } };
    const { created, claimed } = await records.admit(run, 'o1', 10_000, 1);
    expect(created).toBe(true);
    expect(claimed).toMatchObject({
      runId: run.runId,
      kind: 'message',
      epoch: 1,
      attempts: 1,
      input: null,
      cancelRequested: false,
      agentsMayWait: false,
      approval: run.approval,
    });
    expect(
      await pool.query(
        'SELECT status, lease_owner, lease_epoch, attempts, started_at IS NOT NULL AS started FROM runs WHERE run_id = $1',
        [run.runId],
      ),
    ).toMatchObject({
      rows: [{ status: 'running', lease_owner: 'o1', lease_epoch: 1, attempts: 1, started: true }],
    });
    expect(await records.highestFence(run.tenantId, run.conversationId)).toBe(1);
    // Held like any claimed run: another holder cannot take it, and the holder's writes are fenced by its epoch.
    expect(await claim(run, 'o2', 10_000, 2)).toBeUndefined();
    await steps.recordModels({ ...run, epoch: claimed!.epoch }, [[1, response]]);
    await records.finish(claimed!, 'completed', result(run.runId));
    expect(await records.get('acme', run.runId)).toMatchObject({ status: 'completed' });
  });

  it('admits a message as queued when its conversation has a live run, queued or running, and claims it in order later', async () => {
    const running = newRun();
    const first = (await records.admit(running, 'o1', 10_000, 1)).claimed!;
    const queued = { ...newRun(), conversationId: running.conversationId };
    expect(await records.admit(queued, 'o1', 10_000, 1)).toEqual({ created: true, claimed: undefined });
    const third = { ...newRun(), conversationId: running.conversationId };
    // A queued run ahead is enough to wait, even with nothing running.
    await records.finish(first, 'completed', result(running.runId));
    expect(await records.admit(third, 'o1', 10_000, 2)).toEqual({ created: true, claimed: undefined });
    expect((await records.claimNext('acme', running.conversationId, 'o1', 10_000, 2)).claimed?.runId).toBe(
      queued.runId,
    );
  });

  it('admits a message as queued, unclaimed, when the conversation token is lower than one already used', async () => {
    const earlier = newRun();
    await records.create(earlier);
    await records.finish((await claim(earlier, 'o1', 10_000, 5))!, 'completed', result(earlier.runId));
    const stale = { ...newRun(), conversationId: earlier.conversationId };
    expect(await records.admit(stale, 'o2', 10_000, 4)).toEqual({ created: true, claimed: undefined });
    expect(await records.get('acme', stale.runId)).toMatchObject({ status: 'queued' });
    expect(await records.highestFence('acme', earlier.conversationId)).toBe(5);
  });

  it('admits nothing when the run id exists, whichever tenant has it', async () => {
    const run = newRun();
    const first = (await records.admit(run, 'o1', 10_000, 1)).claimed!;
    expect(await records.admit({ ...run, content: 'again' }, 'o1', 10_000, 2)).toEqual({
      created: false,
      claimed: undefined,
    });
    expect(await records.admit({ ...run, tenantId: 'globex', conversationId: 'elsewhere' }, 'o1', 10_000, 1)).toEqual({
      created: false,
      claimed: undefined,
    });
    expect(await records.get('acme', run.runId)).toMatchObject({ status: 'running', content: 'hello' });
    expect(await records.get('globex', run.runId)).toBeUndefined();
    await records.finish(first, 'completed', result(run.runId));
  });

  it('lets a holder hand a run over (release its lease): another holder claims it at once; a stale holder releases nothing', async () => {
    const run = newRun();
    const first = (await records.admit(run, 'o1', 60_000, 1)).claimed!;
    expect(await claim(run, 'o2', 60_000, 2)).toBeUndefined();
    // Neither another owner nor an older epoch can release it.
    await records.releaseLease({ ...run, epoch: first.epoch }, 'o2');
    await records.releaseLease({ ...run, epoch: first.epoch - 1 }, 'o1');
    expect(await claim(run, 'o2', 60_000, 3)).toBeUndefined();
    await records.releaseLease({ ...run, epoch: first.epoch }, 'o1');
    expect(await claim(run, 'o2', 60_000, 4)).toMatchObject({ runId: run.runId, attempts: 2, epoch: first.epoch + 1 });
  });

  it('defers a run a dependency outage stopped: no claim before the backoff, and the attempt not counted', async () => {
    const run = newRun();
    const first = (await records.admit(run, 'o1', 60_000, 1)).claimed!;
    expect(first.attempts).toBe(1);
    // Only the holder of this epoch can defer it.
    await records.deferAfterOutage({ ...run, epoch: first.epoch }, 'o2', 200, 60_000);
    await records.deferAfterOutage({ ...run, epoch: first.epoch }, 'o1', 200, 60_000);
    expect(await claim(run, 'o2', 60_000, 2)).toBeUndefined();
    // Polled (a condition, not a timing guess): claimable once the backoff is over, as attempt 1 again.
    let second: Awaited<ReturnType<typeof claim>>;
    for (let i = 0; i < 100 && !(second = await claim(run, 'o2', 60_000, 3 + i)); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(second).toMatchObject({ runId: run.runId, attempts: 1, epoch: first.epoch + 1 });
    // A run older than the refund window still counts the attempt.
    await records.deferAfterOutage({ ...run, epoch: second!.epoch }, 'o2', 1, 0);
    await new Promise((r) => setTimeout(r, 20));
    let third: Awaited<ReturnType<typeof claim>>;
    for (let i = 0; i < 100 && !(third = await claim(run, 'o3', 60_000, 200 + i)); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(third).toMatchObject({ attempts: 2 });
    await records.finish(third!, 'completed', result(run.runId));
  });

  it('lets one holder claim a run until its lease expires, then another, with a higher epoch', async () => {
    const run = newRun();
    await records.create(run);
    const first = await claim(run, 'o1', 200, 1);
    expect(first).toMatchObject({ epoch: 1, attempts: 1, input: null });
    expect(await claim(run, 'o2', 200, 2)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    const second = await claim(run, 'o2', 10_000, 3);
    expect(second).toMatchObject({ epoch: 2, attempts: 2 });
    // The first holder is fenced out of every write.
    await expect(steps.recordModels({ ...run, epoch: first!.epoch }, [[1, response]])).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    await expect(records.renew({ ...run, epoch: first!.epoch }, 'o1', 1_000)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(records.finish(first!, 'completed', result(run.runId))).rejects.toBeInstanceOf(LeaseLostError);
    await steps.recordModels({ ...run, epoch: second!.epoch }, [[1, response]]);
    await records.finish(second!, 'completed', result(run.runId));
    expect(await records.get('acme', run.runId)).toMatchObject({ status: 'completed', stopReason: 'final_answer' });
  });

  it('refuses a claim with a conversation token lower than one already used (fencing)', async () => {
    const run = newRun();
    await records.create(run);
    const other = { ...newRun(), conversationId: run.conversationId };
    await records.create(other);
    await claim(run, 'o1', 10, 5);
    await new Promise((r) => setTimeout(r, 50));
    // A holder whose conversation lease was lost (token 4 < 5) cannot claim, even an expired run.
    expect(await claim(run, 'o2', 10_000, 4)).toBeUndefined();
    expect(await records.highestFence(run.tenantId, run.conversationId)).toBe(5);
    expect(await claim(run, 'o2', 10_000, 6)).toMatchObject({ epoch: 2 });
  });

  it('journals and finishes a run whose texts hold characters jsonb refuses (U+0000, half an emoji), as U+FFFD', async () => {
    const run = newRun();
    const claimed = (await records.admit(run, 'o1', 10_000, 1)).claimed!;
    const odd = `binary\u0000junk and ${'😀'.slice(0, 1)} a cut emoji`;
    const clean = 'binary\uFFFDjunk and \uFFFD a cut emoji';
    await steps.recordModels(
      { ...run, epoch: claimed.epoch },
      [[1, { ...response, message: { role: 'assistant', content: odd } }]],
      { input: [{ role: 'user', content: odd }] },
    );
    await steps.recordTool({ ...run, epoch: claimed.epoch }, 'call-odd', { status: 'success', content: odd });
    const loaded = await steps.load(run.runId);
    expect(loaded.models[0]!.message.content).toBe(clean);
    expect(loaded.tools.get('call-odd')).toEqual({ status: 'success', content: clean });
    await records.finish(claimed, 'completed', { ...result(run.runId), response: odd });
    expect(await records.get('acme', run.runId)).toMatchObject({ status: 'completed', result: { response: clean } });
  });

  it('keeps the assembled input for a resume and loads journaled steps in order', async () => {
    const run = newRun();
    await records.create(run);
    const claimed = await claim(run, 'o1', 100, 1);
    const input = [{ role: 'user' as const, content: 'hello' }];
    const nth = (n: number) => [n, { ...response, message: { role: 'assistant' as const, content: `r${n}` } }] as const;
    // Responses 1 and 2 in one write (1 asked only for side-effect-free calls), with the input and a held outcome.
    await steps.recordModels({ ...run, epoch: claimed!.epoch }, [nth(1), nth(2)], {
      input,
      heldTools: [['call-pure', { status: 'success' as const, content: 'pure' }]],
    });
    await steps.recordModels({ ...run, epoch: claimed!.epoch }, [nth(10)]);
    await steps.recordTool({ ...run, epoch: claimed!.epoch }, 'call-1', { status: 'success', content: 'ok' });
    const loaded = await steps.load(run.runId);
    expect(loaded.models.map((m) => m.message.content)).toEqual(['r1', 'r2', 'r10']);
    expect(loaded.tools.get('call-1')).toEqual({ status: 'success', content: 'ok' });
    expect(loaded.tools.get('call-pure')).toEqual({ status: 'success', content: 'pure' }); // written with responses 1 and 2
    // Not even its own holder takes a run again before the lease runs out (a failed attempt backs off).
    expect(await claim(run, 'o1', 10_000, 2)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 150));
    const again = await claim(run, 'o2', 10_000, 3);
    expect(again?.input).toEqual(input);
    // The input is written with the first response only while the writer holds the run.
    await expect(
      steps.recordModels({ ...run, epoch: claimed!.epoch }, [[11, response]], { input }),
    ).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('records token usage per tenant and day with each finished run', async () => {
    const tenant = `usage-${counter}`;
    for (let i = 0; i < 2; i++) {
      const run = newRun(undefined, tenant);
      await records.create(run);
      await records.finish((await claim(run, 'o1', 10_000, 1))!, 'completed', result(run.runId));
    }
    const today = new Date().toISOString().slice(0, 10);
    expect(await records.usage(tenant, today, today)).toEqual([
      { day: today, turns: 2, inputTokens: 14, outputTokens: 6 },
    ]);
    // Earlier days come first; days outside the range and other tenants' usage stay out.
    await pool.query(
      `INSERT INTO tenant_usage (tenant_id, day, turns, input_tokens, output_tokens)
       VALUES ($1, '2026-01-02', 3, 30, 9), ($1, '2025-12-31', 1, 1, 1), ($2, '2026-01-02', 5, 5, 5)`,
      [tenant, `${tenant}-other`],
    );
    expect(await records.usage(tenant, '2026-01-01', today)).toEqual([
      { day: '2026-01-02', turns: 3, inputTokens: 30, outputTokens: 9 },
      { day: today, turns: 2, inputTokens: 14, outputTokens: 6 },
    ]);
    expect(await records.usage(`${tenant}-none`, '2026-01-01', today)).toEqual([]);
  });

  it("adds a finished run's usage to its session's shard: another session's open write to the tenant's day does not hold it up", async () => {
    const tenant = `usage-shards-${++counter}`;
    const today = new Date().toISOString().slice(0, 10);
    const shardOf = async (session: pg.Pool | pg.PoolClient): Promise<number> =>
      Number((await session.query<{ shard: number }>('SELECT pg_backend_pid() % 32 AS shard')).rows[0]!.shard);
    // One session, so its shard is known; a finish waiting for the other session's row fails (lock_timeout) rather than hangs.
    const finisher = new pg.Pool({
      ...pool.options,
      max: 1,
      options: `${pool.options.options ?? ''} -c lock_timeout=5s`,
    });
    const colliding: pg.PoolClient[] = [];
    let holder: pg.PoolClient | undefined;
    try {
      const finishing = await shardOf(finisher);
      // The writer below must be another shard's session (pids a multiple of 32 apart share one).
      while (!holder) {
        const session = await pool.connect();
        if ((await shardOf(session)) === finishing) colliding.push(session);
        else holder = session;
      }
      colliding.forEach((session) => session.release());
      const held = await shardOf(holder);
      // An uncommitted write to the tenant's day, in its own shard and in the table before shards.
      await holder.query('BEGIN');
      await holder.query(
        `INSERT INTO tenant_usage_shards (tenant_id, day, shard, turns, input_tokens, output_tokens) VALUES ($1, $2, $3, 1, 10, 1)`,
        [tenant, today, held],
      );
      await holder.query(
        `INSERT INTO tenant_usage (tenant_id, day, turns, input_tokens, output_tokens) VALUES ($1, $2, 1, 100, 10)`,
        [tenant, today],
      );
      const run = newRun(undefined, tenant);
      await records.create(run);
      await new RunRecords(finisher).finish((await claim(run, 'o1', 10_000, 1))!, 'completed', result(run.runId));
      await holder.query('COMMIT');
      const { rows } = await pool.query(
        'SELECT shard, turns::int FROM tenant_usage_shards WHERE tenant_id = $1 ORDER BY shard',
        [tenant],
      );
      expect(rows).toEqual(
        [
          { shard: held, turns: 1 },
          { shard: finishing, turns: 1 },
        ].sort((a, b) => a.shard - b.shard),
      );
      // Readers sum the shards and the table before shards.
      expect(await records.usage(tenant, today, today)).toEqual([
        { day: today, turns: 3, inputTokens: 117, outputTokens: 14 },
      ]);
    } finally {
      await holder?.query('ROLLBACK').catch(() => undefined);
      holder?.release();
      await finisher.end();
    }
  });
});

describe('writes about a running run', () => {
  /** Index tuples read so far from `index` (the session's own pending statistics flushed first). */
  const tuplesRead = async (session: pg.Pool, index: string): Promise<number> => {
    await session.query('SELECT pg_stat_force_next_flush()'); // flushed as the session goes idle
    const { rows } = await session.query<{ n: string }>(
      'SELECT idx_tup_read AS n FROM pg_stat_user_indexes WHERE indexrelname = $1',
      [index],
    );
    return Number(rows[0]!.n);
  };

  it('find the run by a key, not by walking every running run of runs_one_running', async () => {
    const tenant = `live-${++counter}`;
    // A journal of many finished runs, whose statistics saw none running (the partial index then
    // looks cheaper than the deeper primary key), then other conversations' turns in flight.
    await pool.query(
      `INSERT INTO runs (run_id, tenant_id, conversation_id, status, stop_reason, result, transcript, created_at, finished_at, profile, content)
       SELECT $1 || i, $2, $1 || i, 'completed', 'final_answer', '{}', '[]', now(), now(), 'default', 'hello' FROM generate_series(1, 20000) i`,
      [`${tenant}-old-`, tenant],
    );
    await pool.query('ANALYZE runs');
    for (let i = 0; i < 20; i++) await records.admit(newRun(undefined, tenant), 'o9', 60_000, 1);
    const run = newRun(undefined, tenant);
    const { claimed } = await records.admit(run, 'o1', 60_000, 1);
    const session = new pg.Pool({ ...pool.options, max: 1 }); // the writes and the counters on one session
    try {
      const before = await tuplesRead(session, 'runs_one_running');
      await new RunSteps(session).recordModels(claimed!, [[1, response]], {
        input: [{ role: 'user', content: 'hello' }],
        heldTools: [['call-1', { status: 'success', content: '84' }]],
      });
      await new RunRecords(session).renew(claimed!, 'o1', 60_000);
      await new RunRecords(session).finish(claimed!, 'completed', result(run.runId));
      // Four lookups of the run (the input's update, the steps' fence, the renewal, the outcome): at most one entry each.
      expect((await tuplesRead(session, 'runs_one_running')) - before).toBeLessThanOrEqual(4);
    } finally {
      await session.end();
    }
    expect((await steps.load(run.runId)).models).toHaveLength(1);
    expect(await records.get(tenant, run.runId)).toMatchObject({ status: 'completed' });
  });
});

describe('cancelling', () => {
  it('finishes a queued run as cancelled at once and flags a running one for its holder', async () => {
    const queued = newRun();
    await records.create(queued);
    const cancelled = await records.requestCancel('acme', queued.runId, (r) => ({
      ...result(r.runId),
      stopReason: 'cancelled',
      response: 'cancelled',
    }));
    expect(cancelled).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });

    const running = newRun();
    await records.create(running);
    const claimed = await claim(running, 'o1', 10_000, 1);
    const flagged = await records.requestCancel('acme', running.runId, (r) => result(r.runId));
    expect(flagged).toMatchObject({ status: 'running', cancelRequested: true });
    expect(await records.renew({ ...running, epoch: claimed!.epoch }, 'o1', 10_000)).toEqual({ cancelRequested: true });
  });

  it('does not let another tenant read or cancel a run', async () => {
    const run = newRun();
    await records.create(run);
    expect(await records.get('other', run.runId)).toBeUndefined();
    expect(await records.requestCancel('other', run.runId, (r) => result(r.runId))).toBeUndefined();
    expect(await records.get('acme', run.runId)).toMatchObject({ status: 'queued', cancelRequested: false });
  });
});

describe('recovery', () => {
  it('lists conversations whose live runs nobody holds', async () => {
    const run = newRun();
    await records.create(run);
    await claim(run, 'dead', 20, 1);
    await new Promise((r) => setTimeout(r, 60));
    const orphans = await records.orphanedConversations(10, 1000);
    expect(orphans).toContainEqual({ tenantId: 'acme', conversationId: run.conversationId });
    const held = newRun();
    await records.create(held);
    await claim(held, 'alive', 60_000, 1);
    expect(await records.orphanedConversations(0, 1000)).not.toContainEqual({
      tenantId: 'acme',
      conversationId: held.conversationId,
    });
  });
});
