import type { ChatMessage } from '@platform/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, waitFor, type SuitePlatform } from './support.js';

interface TaskJson {
  taskId: string;
  status: string;
  nextFireAt: string | null;
  lastOutcome: string | null;
}
interface FireJson {
  fireId: string;
  kind: string;
  status: string;
  runId: string | null;
  attempts: number;
  result: { status: string; response: string } | null;
}

let platform: SuitePlatform;

beforeAll(async () => {
  platform = await bootPlatform('triggers');
});
afterAll(async () => platform?.stop());

async function settledFires(taskId: string, tenant: string, count: number): Promise<FireJson[]> {
  return waitFor(`${count} settled fire(s) of ${taskId}`, async () => {
    const { body } = await api<{ fires: FireJson[] }>(platform, 'GET', `/v1/tasks/${taskId}/fires`, tenant);
    const settled = body.fires.filter((f) => f.status !== 'pending' && f.status !== 'running');
    return settled.length >= count ? settled : undefined;
  });
}

describe('triggered runs through the real orchestrator', () => {
  it('a one-time schedule fires once: a run in the task conversation, the task COMPLETED', async () => {
    const at = new Date(Date.now() + 1_500).toISOString();
    const created = await api<TaskJson>(platform, 'POST', '/v1/tasks', 'acme', {
      name: 'math reminder',
      trigger: { type: 'schedule', at },
      action: { instruction: '[scenario:calculator] What is 12 * (3 + 4)?' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'ACTIVE', nextFireAt: at });
    const taskId = created.body.taskId;
    const [fire] = await settledFires(taskId, 'acme', 1);
    expect(fire).toMatchObject({ kind: 'schedule', status: 'succeeded', attempts: 1, runId: `run_${fire!.fireId}` });
    expect(fire!.result!.response).toContain('84');

    const history = await api<{ messages: Array<{ runId: string; message: ChatMessage }> }>(platform, 'GET', `/v1/conversations/${taskId}/messages`, 'acme');
    expect(history.body.messages[0]!.message).toMatchObject({ role: 'user', content: expect.stringMatching(/^\[Scheduled task, due .*\] \[scenario:calculator\] What is 12/) });
    expect(history.body.messages.every((m) => m.runId === fire!.runId)).toBe(true);
    const task = await waitFor('the task to complete', async () => {
      const { body } = await api<TaskJson>(platform, 'GET', `/v1/tasks/${taskId}`, 'acme');
      return body.status === 'COMPLETED' ? body : undefined;
    });
    expect(task).toMatchObject({ lastOutcome: 'succeeded', nextFireAt: null });
  });

  it('run-now fires a paused recurring task, every fire in the one conversation of the task', async () => {
    const created = await api<TaskJson>(platform, 'POST', '/v1/tasks', 'globex', {
      trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'Europe/Berlin' },
      action: { instruction: '[scenario:plain] Good morning' },
    });
    const taskId = created.body.taskId;
    expect((await api<TaskJson>(platform, 'POST', `/v1/tasks/${taskId}/pause`, 'globex')).body.status).toBe('PAUSED');
    const first = await api<FireJson>(platform, 'POST', `/v1/tasks/${taskId}/run`, 'globex');
    expect(first.status).toBe(202);
    await settledFires(taskId, 'globex', 1);
    const second = await api<FireJson>(platform, 'POST', `/v1/tasks/${taskId}/run`, 'globex');
    const fires = await settledFires(taskId, 'globex', 2);
    expect(fires.map((f) => f.fireId).sort()).toEqual([first.body.fireId, second.body.fireId].sort());
    expect(fires.every((f) => f.status === 'succeeded')).toBe(true);
    const history = await api<{ messages: Array<{ runId: string }> }>(platform, 'GET', `/v1/conversations/${taskId}/messages`, 'globex');
    expect(new Set(history.body.messages.map((m) => m.runId))).toEqual(new Set(fires.map((f) => f.runId)));
    // Another tenant sees nothing of it.
    expect((await api(platform, 'GET', `/v1/tasks/${taskId}/fires`, 'acme')).status).toBe(404);
  });

  it('an event posted to /v1/events fires the event tasks whose filter matches, with the event in the message', async () => {
    const created = await api<TaskJson>(platform, 'POST', '/v1/tasks', 'initech', {
      trigger: { type: 'event', source: 'flights', eventType: 'price.dropped', filter: 'price < 300 and route == "SFO-NRT"' },
      action: { instruction: '[scenario:plain] Tell me about this fare' },
    });
    expect(created.status).toBe(201);
    const taskId = created.body.taskId;
    const miss = await api<{ firedTaskIds: string[] }>(platform, 'POST', '/v1/events', 'initech', { source: 'flights', type: 'price.dropped', data: { price: 450, route: 'SFO-NRT' } });
    expect(miss).toMatchObject({ status: 202, body: { firedTaskIds: [] } });
    const hit = await api<{ eventId: string; firedTaskIds: string[] }>(platform, 'POST', '/v1/events', 'initech', { eventId: 'fare-1', source: 'flights', type: 'price.dropped', data: { price: 280, route: 'SFO-NRT' } });
    expect(hit.body).toEqual({ eventId: 'fare-1', firedTaskIds: [taskId] });
    const [fire] = await settledFires(taskId, 'initech', 1);
    expect(fire).toMatchObject({ kind: 'event', status: 'succeeded' });
    const history = await api<{ messages: Array<{ message: ChatMessage }> }>(platform, 'GET', `/v1/conversations/${taskId}/messages`, 'initech');
    expect(history.body.messages[0]!.message).toMatchObject({ role: 'user', content: expect.stringContaining('[Event trigger: flights price.dropped, event fare-1') });
    expect((history.body.messages[0]!.message as { content: string }).content).toContain('"price":280');
  });
});
