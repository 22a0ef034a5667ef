import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejection, startReplicas, type Replicas } from './test-support/trigger-harness.js';

let r: Replicas;

beforeAll(async () => {
  r = await startReplicas(1, '2026-03-01T10:00:00Z');
});

afterAll(async () => {
  await r?.stop();
});

function create(tenantId: string, spec: unknown, requestId = '') {
  return r.client.rpc.createTask({ tenantId, userId: 'user-1', specJson: JSON.stringify(spec), requestId });
}

const daily = {
  name: 'digest',
  trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'Asia/Shanghai' },
  action: { instruction: 'Summarize my unread emails' },
};

describe('TriggerService tasks', () => {
  it('creates a task ACTIVE with its next time in its zone, and returns the spec with defaults', async () => {
    const { task, duplicate } = await create('acme', daily);
    expect(duplicate).toBe(false);
    expect(task).toMatchObject({
      tenantId: 'acme',
      userId: 'user-1',
      name: 'digest',
      status: 'ACTIVE',
      triggerType: 'schedule',
      lastOutcome: '',
    });
    expect(task!.nextFireAt!.toISOString()).toBe('2026-03-02T00:00:00.000Z'); // 08:00 in Shanghai
    expect(JSON.parse(task!.specJson)).toMatchObject({
      executor: 'orchestrator',
      misfire: { policy: 'fire_once' },
      output: { channel: 'none' },
    });
  });

  it('returns the same task for a repeated request id', async () => {
    const first = await create('acme', daily, 'req-7');
    const again = await create('acme', daily, 'req-7');
    expect(again).toMatchObject({ duplicate: true, task: { taskId: first.task!.taskId } });
  });

  it.each([
    [{ ...daily, trigger: { type: 'schedule', cron: '61 8 * * *' } }, /^trigger\.cron: not a valid cron pattern/],
    [
      { ...daily, trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'Mars/Olympus' } },
      /^trigger\.timeZone: 'Mars\/Olympus' is not an IANA time zone/,
    ],
    [
      { ...daily, trigger: { type: 'schedule', cron: '0 8 * * *', intervalSeconds: 60 } },
      /^trigger\.cron: exactly one of cron, intervalSeconds or at/,
    ],
    [{ ...daily, trigger: { type: 'schedule', intervalSeconds: 0 } }, /^trigger\.intervalSeconds: /],
    [{ ...daily, trigger: { type: 'schedule', at: '2020-01-01T00:00:00Z' } }, /^trigger\.at: is in the past/],
    [{ ...daily, trigger: { type: 'schedule', at: 'tomorrow' } }, /^trigger\.at: /],
    [{ ...daily, trigger: { type: 'sometimes' } }, /^trigger\.type: /],
    [{ ...daily, misfire: { policy: 'catch_up' } }, /^misfire\.windowSeconds: catch_up needs windowSeconds/],
    [{ ...daily, action: {} }, /^action\.instruction: the orchestrator executor needs an instruction/],
    [{ ...daily, executor: 'no spaces allowed' }, /^executor: /],
    [{ ...daily, colour: 'blue' }, /^\(root\): Unrecognized key/],
    [
      { ...daily, output: { channel: 'webhook', url: 'http://example.com/hook' } },
      /^output\.url: must be an https URL/,
    ],
    [
      { ...daily, output: { channel: 'none', url: 'https://example.com/hook' } },
      /^output\.url: url is only for the webhook channel/,
    ],
    [
      { ...daily, output: { channel: 'webhook', url: 'http://example.com/hook' } },
      /^output\.url: must be an https URL/,
    ],
    [
      { ...daily, output: { channel: 'none', url: 'https://example.com/hook' } },
      /^output\.url: url is only for the webhook channel/,
    ],
  ])('refuses an invalid spec, naming the field (%#)', async (spec, message) => {
    const error = await rejection(create('acme', spec));
    expect(error.code).toBe('INVALID_TASK_SPEC');
    expect(error.message).toMatch(message);
  });

  it('refuses a spec that is not JSON', async () => {
    const error = await rejection(
      r.client.rpc.createTask({ tenantId: 'acme', userId: '', specJson: '{', requestId: '' }),
    );
    expect(error).toMatchObject({ code: 'INVALID_TASK_SPEC', message: 'the task spec is not valid JSON' });
  });

  it('hides tasks of other tenants: every call answers TASK_NOT_FOUND', async () => {
    const { task } = await create('tenant-a', daily);
    const taskId = task!.taskId;
    const calls = [
      () => r.client.rpc.getTask({ tenantId: 'tenant-b', taskId }),
      () => r.client.rpc.pauseTask({ tenantId: 'tenant-b', taskId }),
      () => r.client.rpc.resumeTask({ tenantId: 'tenant-b', taskId }),
      () => r.client.rpc.runTaskNow({ tenantId: 'tenant-b', taskId, requestId: '' }),
      () => r.client.rpc.listFires({ tenantId: 'tenant-b', taskId, pageSize: 0, pageToken: '' }),
      () => r.client.rpc.updateTask({ tenantId: 'tenant-b', taskId, specJson: JSON.stringify(daily) }),
      () => r.client.rpc.deleteTask({ tenantId: 'tenant-b', taskId }),
      () => r.client.rpc.getTask({ tenantId: 'tenant-a', taskId: 'not-a-task' }),
    ];
    for (const call of calls) expect((await rejection(call())).code).toBe('TASK_NOT_FOUND');
    expect((await r.client.rpc.getTask({ tenantId: 'tenant-a', taskId })).task!.taskId).toBe(taskId);
  });

  it('lists a tenant tasks newest first, a page at a time', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create('lister', { ...daily, name: `t${i}` })).task!.taskId);
    const first = await r.client.rpc.listTasks({ tenantId: 'lister', pageSize: 3, pageToken: '' });
    const second = await r.client.rpc.listTasks({ tenantId: 'lister', pageSize: 3, pageToken: first.nextPageToken });
    expect([...first.tasks, ...second.tasks].map((t) => t.taskId)).toEqual([...ids].reverse());
    expect(second.nextPageToken).toBe('');
    expect(
      (await rejection(r.client.rpc.listTasks({ tenantId: 'lister', pageSize: 3, pageToken: 'garbage' }))).code,
    ).toBe('INVALID_PAGE_TOKEN');
  });

  it('updates a spec (next time recomputed), pauses, resumes, refuses to pause a finished task, deletes', async () => {
    const { task } = await create('life', daily);
    const taskId = task!.taskId;
    const updated = await r.client.rpc.updateTask({
      tenantId: 'life',
      taskId,
      specJson: JSON.stringify({
        ...daily,
        trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'Europe/London' },
      }),
    });
    expect(updated.task!.nextFireAt!.toISOString()).toBe('2026-03-02T08:00:00.000Z');
    expect((await r.client.rpc.pauseTask({ tenantId: 'life', taskId })).task).toMatchObject({
      status: 'PAUSED',
      nextFireAt: undefined,
    });
    expect((await r.client.rpc.pauseTask({ tenantId: 'life', taskId })).task!.status).toBe('PAUSED');
    expect((await r.client.rpc.resumeTask({ tenantId: 'life', taskId })).task!.status).toBe('ACTIVE');
    await r.client.rpc.deleteTask({ tenantId: 'life', taskId });
    expect((await rejection(r.client.rpc.getTask({ tenantId: 'life', taskId }))).code).toBe('TASK_NOT_FOUND');
  });
});
