import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicas, type Replicas } from './test-support/trigger-harness.js';

const MINUTE = 60_000;
let r: Replicas;

beforeAll(async () => {
  r = await startReplicas(3, '2026-06-01T11:59:30Z');
});

afterAll(async () => {
  await r?.stop();
});

const tenant = () => `t-${randomBytes(4).toString('hex')}`;

async function createTask(tenantId: string, spec: Record<string, unknown>): Promise<string> {
  const { task } = await r.client.rpc.createTask({
    tenantId,
    userId: 'u1',
    specJson: JSON.stringify({ executor: 'noop_exec', ...spec }),
    requestId: '',
  });
  return task!.taskId;
}

async function fires(tenantId: string, taskId: string) {
  const { fires } = await r.client.rpc.listFires({ tenantId, taskId, pageSize: 500, pageToken: '' });
  return fires
    .map((f) => ({
      at: f.scheduledAt!.toISOString().slice(11, 19),
      status: f.status,
      missed: f.missedCount,
      attempts: f.attempts,
    }))
    .reverse();
}

describe('exactly one fire per (task, scheduled time) across replicas', () => {
  it('three replicas planning and claiming together execute each time of each task once', async () => {
    const t = tenant();
    const ids = await Promise.all(
      Array.from({ length: 20 }, () => createTask(t, { trigger: { type: 'schedule', cron: '* * * * *' } })),
    );
    for (let minute = 0; minute < 3; minute++) {
      r.clock.advance(MINUTE);
      await r.round();
    }
    for (const id of ids) {
      const times = r.executor.callsOf(id).map((c) => c.scheduledAt.toISOString());
      expect(times).toEqual(['2026-06-01T12:00:00.000Z', '2026-06-01T12:01:00.000Z', '2026-06-01T12:02:00.000Z']);
    }
    const byReplica = new Set((await fires(t, ids[0]!)).map((f) => f.status));
    expect(byReplica).toEqual(new Set(['succeeded']));
  });

  it('a fire whose replica died after claiming it is claimed again when its lease runs out, and runs once', async () => {
    const t = tenant();
    const id = await createTask(t, { trigger: { type: 'schedule', intervalSeconds: 3600 } });
    r.clock.advance(3600_000);
    const [a, b] = r.servers;
    await a!.engine.planner.planDue();
    // Replica a claims the fire and "dies" before executing: its claim is written, nothing runs.
    const claimedByA = await (
      a!.engine.dispatcher as unknown as { store: { claim(n: number, now: number, lease: number): Promise<unknown[]> } }
    ).store.claim(100, r.clock.now(), 15_000);
    expect(claimedByA.length).toBeGreaterThan(0);
    await r.round();
    expect(r.executor.callsOf(id)).toHaveLength(0); // the lease still holds
    r.clock.advance(15_001);
    await b!.engine.dispatcher.dispatchDue();
    await b!.engine.dispatcher.idle();
    await r.round();
    expect(r.executor.callsOf(id).map((c) => c.attempt)).toEqual([2]);
    expect(await fires(t, id)).toMatchObject([{ status: 'succeeded', attempts: 2 }]);
  });
});

describe('misfire policies after ten minutes of downtime', () => {
  /** Created at hh:mm:30, fires on time at mm+1, then the service is down until mm+11:00. */
  async function downtime(policy: Record<string, unknown>) {
    r.clock.set(Math.ceil(r.clock.now() / MINUTE) * MINUTE + MINUTE / 2);
    const t = tenant();
    const id = await createTask(t, { trigger: { type: 'schedule', cron: '* * * * *' }, misfire: policy });
    r.clock.advance(MINUTE / 2);
    await r.round(); // fires on time once
    r.clock.advance(10 * MINUTE); // nobody runs for ten minutes
    await r.round();
    return { t, id };
  }

  it('skip', async () => {
    const { t, id } = await downtime({ policy: 'skip' });
    const history = await fires(t, id);
    expect(history.filter((f) => f.status === 'skipped')).toEqual([
      { at: expect.any(String), status: 'skipped', missed: 8, attempts: 0 },
    ]);
    expect(r.executor.callsOf(id)).toHaveLength(2); // the on-time fire before, and the on-time fire now
    expect(history.map((f) => f.status)).toEqual(['succeeded', 'skipped', 'succeeded']);
  });

  it('skip: a fire planned before the downtime but not run until after it is skipped at claim time, not executed late', async () => {
    r.clock.set(Math.ceil(r.clock.now() / MINUTE) * MINUTE + MINUTE / 2);
    const t = tenant();
    const skipId = await createTask(t, {
      trigger: { type: 'schedule', cron: '* * * * *' },
      misfire: { policy: 'skip' },
    });
    const onceId = await createTask(t, {
      trigger: { type: 'schedule', cron: '* * * * *' },
      misfire: { policy: 'fire_once' },
    });
    r.clock.advance(MINUTE / 2);
    // The fires of this minute are planned (rows, pending), then every replica stops before claiming them.
    await r.servers[0]!.engine.planner.planDue();
    const planned = await fires(t, skipId);
    expect(planned).toEqual([{ at: expect.any(String), status: 'pending', missed: 0, attempts: 0 }]);
    r.clock.advance(10 * MINUTE);
    await r.round();
    const history = await fires(t, skipId);
    // The planned fire: claimed once, recorded skipped, its executor never called for that time.
    expect(history[0]).toEqual({ at: planned[0]!.at, status: 'skipped', missed: 0, attempts: 1 });
    const { fires: raw } = await r.client.rpc.listFires({ tenantId: t, taskId: skipId, pageSize: 50, pageToken: '' });
    expect(raw.find((f) => f.scheduledAt!.toISOString().slice(11, 19) === planned[0]!.at)).toMatchObject({
      errorCode: 'MISFIRE_SKIPPED',
    });
    // The times of the downtime are one skipped fire; the on-time fire now runs.
    expect(history.slice(1).map((f) => f.status)).toEqual(['skipped', 'succeeded']);
    expect(r.executor.callsOf(skipId).map((c) => c.scheduledAt.toISOString().slice(11, 19))).toEqual([history[2]!.at]);
    // Under fire_once the same planned fire is executed late, standing for itself.
    const late = r.executor.callsOf(onceId).map((c) => c.scheduledAt.toISOString().slice(11, 19));
    expect(late).toContain(planned[0]!.at);
  });

  it('fire_once', async () => {
    const { t, id } = await downtime({ policy: 'fire_once' });
    const calls = r.executor.callsOf(id);
    // The on-time fire before the downtime, then one fire for the 8 missed times and the on-time
    // fire now: those two are due together and dispatched concurrently, in either order.
    expect(calls[0]?.missedCount).toBe(0);
    expect(
      calls
        .slice(1)
        .map((c) => c.missedCount)
        .sort((a, b) => a - b),
    ).toEqual([0, 8]);
    expect((await fires(t, id)).every((f) => f.status === 'succeeded')).toBe(true);
  });

  it('catch_up within a window', async () => {
    const { t, id } = await downtime({ policy: 'catch_up', windowSeconds: 300 });
    const history = await fires(t, id);
    expect(history.filter((f) => f.status === 'skipped').map((f) => f.missed)).toEqual([3]);
    expect(history.filter((f) => f.status === 'succeeded')).toHaveLength(1 + 5 + 1);
    expect(r.executor.callsOf(id)).toHaveLength(7);
  });
});

describe('retries and back-pressure', () => {
  it('back-pressure waits for retry-after without counting an attempt; failures back off; the fire runs once in the end', async () => {
    const t = tenant();
    const id = await createTask(t, { trigger: { type: 'schedule', intervalSeconds: 86_400 } });
    let answers = 0;
    r.executor.answer = (fire) => {
      if (fire.taskId !== id) return { status: 'succeeded', result: null };
      answers++;
      if (answers <= 2) return { status: 'backpressure', code: 'OVERLOADED', message: 'busy', retryAfterMs: 5_000 };
      if (answers === 3) return { status: 'failed', code: 'TRANSPORT_FAILED', message: 'no answer', retryable: true };
      return { status: 'succeeded', result: { done: true } };
    };
    try {
      r.clock.advance(86_400_000);
      await r.round();
      await r.round(); // retry-after not reached: nothing runs
      expect(answers).toBe(1);
      for (let i = 0; i < 4; i++) {
        r.clock.advance(5_000);
        await r.round();
      }
      expect(answers).toBe(4);
      expect(await fires(t, id)).toMatchObject([{ status: 'succeeded', attempts: 2 }]);
    } finally {
      r.executor.answer = () => ({ status: 'succeeded', result: null });
    }
  });

  it('a failure that cannot be retried ends the fire failed and is the task last outcome', async () => {
    const t = tenant();
    const id = await createTask(t, { trigger: { type: 'schedule', intervalSeconds: 86_400 } });
    r.executor.answer = (fire) =>
      fire.taskId === id
        ? { status: 'failed', code: 'INVALID', message: 'bad config', retryable: false }
        : { status: 'succeeded', result: null };
    try {
      r.clock.advance(86_400_000);
      await r.round();
      expect(await fires(t, id)).toMatchObject([{ status: 'failed', attempts: 1 }]);
      const { task } = await r.client.rpc.getTask({ tenantId: t, taskId: id });
      expect(task).toMatchObject({ status: 'ACTIVE', lastOutcome: 'failed' });
    } finally {
      r.executor.answer = () => ({ status: 'succeeded', result: null });
    }
  });
});

describe('task lifecycle', () => {
  it('a one-time task fires once and is COMPLETED', async () => {
    const t = tenant();
    const at = new Date(r.clock.now() + MINUTE).toISOString();
    const id = await createTask(t, { trigger: { type: 'schedule', at } });
    r.clock.advance(MINUTE);
    await r.round();
    await r.round();
    expect(r.executor.callsOf(id)).toHaveLength(1);
    const { task } = await r.client.rpc.getTask({ tenantId: t, taskId: id });
    expect(task).toMatchObject({ status: 'COMPLETED', lastOutcome: 'succeeded' });
    expect(task!.nextFireAt).toBeUndefined();
  });

  it('a paused task does not fire; resumed, it fires from now on without the paused times', async () => {
    const t = tenant();
    const id = await createTask(t, { trigger: { type: 'schedule', cron: '* * * * *' } });
    await r.client.rpc.pauseTask({ tenantId: t, taskId: id });
    r.clock.advance(5 * MINUTE);
    await r.round();
    expect(r.executor.callsOf(id)).toHaveLength(0);
    const { task } = await r.client.rpc.resumeTask({ tenantId: t, taskId: id });
    expect(task!.status).toBe('ACTIVE');
    r.clock.advance(MINUTE);
    await r.round();
    expect(r.executor.callsOf(id)).toHaveLength(1);
  });

  it('run-now fires once per request id, whatever the trigger', async () => {
    const t = tenant();
    const id = await createTask(t, { trigger: { type: 'schedule', cron: '0 0 1 1 *' } });
    const first = await r.client.rpc.runTaskNow({ tenantId: t, taskId: id, requestId: 'req-1' });
    const again = await r.client.rpc.runTaskNow({ tenantId: t, taskId: id, requestId: 'req-1' });
    expect(again).toMatchObject({ duplicate: true, fire: { fireId: first.fire!.fireId } });
    await r.round();
    expect(r.executor.callsOf(id).map((c) => c.kind)).toEqual(['manual']);
  });
});
