import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejection, startReplicas, triggerClient, type Replicas } from './test-support/trigger-harness.js';

// Issue 34, item 9: a tenant created 150 tasks firing every second. Tasks per tenant and the
// shortest schedule interval are quotas of the tenant's tier (TENANT_TIERS), refused at creation.

let r: Replicas;

const TIERS = { default: { tasks: 3 }, fast: { tasks: 20, minScheduleIntervalSeconds: 5 } };

beforeAll(async () => {
  // Two replicas on one database: the task count holds across them.
  r = await startReplicas(2, '2026-03-01T10:00:00Z', {
    TENANT_TIERS: JSON.stringify(TIERS),
    TRIGGER_MAX_TASKS_PER_TENANT: '50',
  });
});

afterAll(async () => {
  await r?.stop();
});

const every = (intervalSeconds: number) => ({
  name: 'poll',
  trigger: { type: 'schedule', intervalSeconds },
  action: { instruction: 'check' },
});
const cron = (pattern: string) => ({
  name: 'cron',
  trigger: { type: 'schedule', cron: pattern },
  action: { instruction: 'check' },
});
const condition = (intervalSeconds: number) => ({
  name: 'watch',
  trigger: { type: 'condition', tool: 'flight_price', intervalSeconds, condition: 'result.price < 300' },
  executor: 'noop_exec',
});

function create(tenantId: string, spec: unknown, tier?: string) {
  return r.client.rpc.createTask({
    tenantId,
    userId: 'u',
    specJson: JSON.stringify(spec),
    requestId: '',
    ...(tier !== undefined ? { tier } : {}),
  });
}

describe('the minimum schedule interval (default 60 s)', () => {
  it.each([
    ['an interval of 1 s', every(1), 'trigger.intervalSeconds', 1],
    ['an interval of 59 s', every(59), 'trigger.intervalSeconds', 59],
    ['a cron every second', cron('* * * * * *'), 'trigger.cron', 1],
    ['a cron every 10 s', cron('*/10 * * * * *'), 'trigger.cron', 10],
    ['a cron with two fires a second apart once a day', cron('0,1 0 8 * * *'), 'trigger.cron', 1],
    ['a condition polled every second', condition(1), 'trigger.intervalSeconds', 1],
  ])('refuses %s with QUOTA_EXCEEDED min_schedule_interval_seconds', async (_, spec, field, interval) => {
    const error = await rejection(create('interval-tenant', spec));
    expect(error).toMatchObject({
      kind: 'resource_exhausted',
      code: 'QUOTA_EXCEEDED',
      details: { quota: 'min_schedule_interval_seconds', limit: 60, tier: 'default' },
    });
    expect(error.message).toContain(`${field}: this task would fire every ${interval} s`);
  });

  it('accepts 60 s, every-minute crons, daily crons, one-time and event tasks', async () => {
    for (const spec of [every(60), cron('* * * * *'), cron('0 8 * * *')]) await create('interval-ok', spec);
    await expect(
      r.client.rpc.createTask({
        tenantId: 'interval-ok-2',
        userId: 'u',
        specJson: JSON.stringify({
          name: 'e',
          trigger: { type: 'event', source: 'gmail', eventType: 'received' },
          action: { instruction: 'x' },
        }),
        requestId: '',
      }),
    ).resolves.toBeDefined();
  });

  it('follows the tier: a tier with 5 s accepts 5 s and refuses 4 s; an unknown tier gets the default tier', async () => {
    await create('fast-tenant', every(5), 'fast');
    expect(await rejection(create('fast-tenant', every(4), 'fast'))).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      details: { quota: 'min_schedule_interval_seconds', limit: 5, tier: 'fast' },
    });
    expect(await rejection(create('fast-tenant-2', every(5), 'no-such-tier'))).toMatchObject({
      details: { limit: 60, tier: 'default' },
    });
  });

  it('refuses an update to a faster schedule the same way, and keeps the task as it was', async () => {
    const { task } = await create('update-tenant', every(3_600));
    const error = await rejection(
      r.client.rpc.updateTask({ tenantId: 'update-tenant', taskId: task!.taskId, specJson: JSON.stringify(every(1)) }),
    );
    expect(error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'min_schedule_interval_seconds' } });
    const { task: kept } = await r.client.rpc.getTask({ tenantId: 'update-tenant', taskId: task!.taskId });
    expect(JSON.parse(kept!.specJson)).toMatchObject({ trigger: { intervalSeconds: 3_600 } });
  });
});

describe('tasks per tenant', () => {
  it("refuses the task past the tier's quota with QUOTA_EXCEEDED tasks, and counts each tenant apart", async () => {
    for (let i = 0; i < 3; i++) await create('counted', every(3_600));
    expect(await rejection(create('counted', every(3_600)))).toMatchObject({
      kind: 'resource_exhausted',
      code: 'QUOTA_EXCEEDED',
      details: { quota: 'tasks', limit: 3, tier: 'default' },
    });
    await create('counted-neighbour', every(3_600));
    // The tier with a larger quota lets the same tenant go on.
    await create('counted', every(3_600), 'fast');
  });

  it('lets exactly the quota through when creations race on two replicas', async () => {
    const other = r.servers[1]!;
    const second = await triggerClient(other.port);
    try {
      const attempts = Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? r.client : second).rpc
          .createTask({ tenantId: 'racing', userId: 'u', specJson: JSON.stringify(every(3_600)), requestId: '' })
          .then(
            () => 'created',
            (err: { code?: string }) => err.code ?? 'other',
          ),
      );
      const outcomes = await Promise.all(attempts);
      expect(outcomes.filter((o) => o === 'created')).toHaveLength(3);
      expect(outcomes.filter((o) => o === 'QUOTA_EXCEEDED')).toHaveLength(9);
      expect((await r.client.rpc.listTasks({ tenantId: 'racing', pageSize: 100, pageToken: '' })).tasks).toHaveLength(
        3,
      );
    } finally {
      second.close();
    }
  });
});
