import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimedFire } from './fire-store.js';
import { startReplicas, type Replicas } from './test-support/trigger-harness.js';

const AHEAD = 20_000;
const LEASE = 15_000;
let r: Replicas;
let db: pg.Pool;

beforeAll(async () => {
  // Fires are planned a minute ahead and claimed up to 30 s ahead, ten per claim-ahead statement.
  r = await startReplicas(3, '2026-06-01T11:59:30Z', {
    TRIGGER_PLAN_AHEAD_MS: '60000',
    TRIGGER_CLAIM_AHEAD_MS: '30000',
    TRIGGER_CLAIM_AHEAD_BATCH: '10',
    TRIGGER_LEASE_MS: String(LEASE),
  });
  db = new pg.Pool({ connectionString: r.databaseUrl, max: 2 });
});

afterAll(async () => {
  await db?.end();
  await r?.stop();
});

const tenant = () => `t-${randomBytes(4).toString('hex')}`;

/** `count` one-time tasks due `AHEAD` from now, planned (pending fires), nothing claimed yet. */
async function plannedTasks(tenantId: string, count: number): Promise<string[]> {
  const at = new Date(r.clock.now() + AHEAD).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { task } = await r.client.rpc.createTask({
      tenantId,
      userId: 'u1',
      specJson: JSON.stringify({ executor: 'noop_exec', trigger: { type: 'schedule', at } }),
      requestId: '',
    });
    ids.push(task!.taskId);
  }
  await r.servers[0]!.engine.planner.planDue();
  return ids;
}

async function firesOf(taskIds: string[]) {
  const { rows } = await db.query<{
    task_id: string;
    status: string;
    attempts: number;
    lease_owner: string | null;
    started_at: Date | null;
  }>('SELECT task_id, status, attempts, lease_owner, started_at FROM trigger.fires WHERE task_id = ANY($1::text[])', [
    taskIds,
  ]);
  return rows;
}

describe('fires claimed ahead of their time', () => {
  it('several replicas split the upcoming fires batch by batch, and each fire runs once at its time', async () => {
    const ids = await plannedTasks(tenant(), 30);
    const claimed = await Promise.all(r.servers.map((s) => s.engine.dispatcher.claimAhead()));
    expect(claimed).toEqual([10, 10, 10]);
    expect(await Promise.all(r.servers.map((s) => s.engine.dispatcher.claimAhead()))).toEqual([0, 0, 0]);
    const held = await firesOf(ids);
    expect(held.every((f) => f.status === 'running' && f.started_at === null)).toBe(true);
    const owners = new Map<string, number>();
    for (const f of held) owners.set(f.lease_owner!, (owners.get(f.lease_owner!) ?? 0) + 1);
    expect([...owners.values()]).toEqual([10, 10, 10]);
    // Before their time nothing runs.
    await r.round();
    expect(ids.flatMap((id) => r.executor.callsOf(id))).toHaveLength(0);
    r.clock.advance(AHEAD);
    await r.round();
    for (const id of ids) expect(r.executor.callsOf(id).map((c) => c.attempt)).toEqual([1]);
    expect((await firesOf(ids)).every((f) => f.status === 'succeeded' && f.attempts === 1)).toBe(true);
  });

  it('a task paused or deleted after its fire was claimed ahead does not fire; the others do', async () => {
    const t = tenant();
    const [paused, deleted, kept] = await plannedTasks(t, 3);
    expect(await r.servers[1]!.engine.dispatcher.claimAhead()).toBe(3);
    await r.client.rpc.pauseTask({ tenantId: t, taskId: paused! });
    await r.client.rpc.deleteTask({ tenantId: t, taskId: deleted! });
    r.clock.advance(AHEAD);
    await r.round();
    expect(r.executor.callsOf(paused!)).toHaveLength(0);
    expect(r.executor.callsOf(deleted!)).toHaveLength(0);
    expect(r.executor.callsOf(kept!)).toHaveLength(1);
    expect(await firesOf([paused!])).toMatchObject([{ status: 'cancelled', lease_owner: null }]);
    expect(await firesOf([deleted!])).toEqual([]);
    expect(r.servers[1]!.engine.dispatcher.held).toBe(0);
  });

  it('a fire claimed ahead by a replica that died before its time is run once by another, when the lease runs out', async () => {
    const [id] = await plannedTasks(tenant(), 1);
    // Replica 0 claims ahead and "dies": the claim is committed, nothing holds the fire in memory.
    const store = (
      r.servers[0]!.engine.dispatcher as unknown as {
        store: { claimAhead(n: number, now: number, until: number, lease: number): Promise<ClaimedFire[]> };
      }
    ).store;
    expect(await store.claimAhead(10, r.clock.now(), r.clock.now() + AHEAD, LEASE)).toHaveLength(1);
    r.clock.advance(AHEAD);
    await r.round();
    expect(r.executor.callsOf(id!)).toHaveLength(0); // the lease holds until its time plus the lease
    r.clock.advance(LEASE + 1);
    await r.servers[2]!.engine.dispatcher.dispatchDue();
    await r.servers[2]!.engine.dispatcher.idle();
    await r.round();
    expect(r.executor.callsOf(id!).map((c) => c.attempt)).toEqual([2]);
    expect(await firesOf([id!])).toMatchObject([{ status: 'succeeded', attempts: 2, lease_owner: null }]);
  });

  it('leases are renewed when less than two thirds is left, not before; a fire claimed ahead keeps its own', async () => {
    const [running, ahead] = await plannedTasks(tenant(), 2);
    const dispatcher = r.servers[1]!.engine.dispatcher;
    let release: () => void = () => undefined;
    r.executor.answer = (fire) =>
      fire.taskId === running
        ? new Promise((resolve) => (release = () => resolve({ status: 'succeeded', result: null })))
        : { status: 'succeeded', result: null };
    const leaseOf = async (taskId: string) =>
      (
        await db.query<{ l: Date }>('SELECT lease_expires_at AS l FROM trigger.fires WHERE task_id = $1', [taskId])
      ).rows[0]!.l.getTime();
    try {
      await db.query(`UPDATE trigger.fires SET due_at = due_at + interval '1 second' WHERE task_id = $1`, [ahead]);
      r.clock.advance(AHEAD - 1_000);
      expect(await dispatcher.claimAhead()).toBe(2);
      r.clock.advance(1_000);
      await dispatcher.dispatchDue(); // the first starts (and blocks in its executor); the second is due in 1 s
      const claimedAt = r.clock.now();
      const aheadLease = await leaseOf(ahead!);
      expect(await leaseOf(running!)).toBe(claimedAt + LEASE);
      r.clock.advance(LEASE / 4);
      await dispatcher.renewLeases();
      expect(await leaseOf(running!)).toBe(claimedAt + LEASE); // three quarters left: not rewritten
      r.clock.advance(LEASE / 4);
      await dispatcher.renewLeases();
      expect(await leaseOf(running!)).toBe(r.clock.now() + LEASE);
      expect(await leaseOf(ahead!)).toBe(aheadLease);
    } finally {
      release();
      r.executor.answer = () => ({ status: 'succeeded', result: { ok: true } });
    }
    await r.round();
    expect(r.executor.callsOf(running!)).toHaveLength(1);
    expect(r.executor.callsOf(ahead!)).toHaveLength(1);
  });

  it('a replica that stops gives back the fires it claimed ahead, and the others run them on time', async () => {
    const ids = await plannedTasks(tenant(), 2);
    const leaving = r.servers[2]!.engine;
    expect(await leaving.dispatcher.claimAhead()).toBe(2);
    await leaving.stop(1_000); // the last test: this replica stays stopped
    expect((await firesOf(ids)).map((f) => [f.status, f.attempts, f.lease_owner])).toEqual([
      ['pending', 0, null],
      ['pending', 0, null],
    ]);
    r.clock.advance(AHEAD);
    await Promise.all(r.servers.slice(0, 2).map((s) => s.engine.dispatcher.dispatchDue()));
    await Promise.all(r.servers.slice(0, 2).map((s) => s.engine.dispatcher.idle()));
    for (const id of ids) expect(r.executor.callsOf(id).map((c) => c.attempt)).toEqual([1]);
  });
});
