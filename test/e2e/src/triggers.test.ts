import type { ChatMessage } from '@platform/contracts';
import type { ManagedProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sseEvents } from './sse.js';
import {
  api,
  bootPlatform,
  startRunnerProcess,
  tokenFor,
  waitFor,
  waitForCatalog,
  type ApprovalJson,
  type SuitePlatform,
  type TurnJson,
} from './support.js';

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
let gatedRunner: ManagedProcess;

beforeAll(async () => {
  platform = await bootPlatform('triggers', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
  // A tool that requires approval (archive_orders): a triggered run stops for the user's approval.
  gatedRunner = await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts');
  await waitForCatalog(platform.apiUrl, ['archive_orders']);
});
afterAll(async () => {
  await gatedRunner?.stop();
  await platform?.stop();
});

interface NotificationJson {
  seq: number;
  type: string;
  taskId: string;
  fireId: string;
  status: string;
  taskStatus: string;
  result: { status: string; response: string; pending?: Array<{ approval?: { approvalId: string } }> } | null;
}

/**
 * Reads the tenant's notification stream (GET /v1/notifications, after `lastEventId`) until
 * `enough` says so or `waitMs` passed, then hangs up; the SSE ids must be the notifications' seqs.
 */
async function notifications(
  tenant: string,
  enough: (seen: NotificationJson[]) => boolean,
  lastEventId?: number,
  waitMs = 60_000,
): Promise<NotificationJson[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), waitMs);
  const seen: NotificationJson[] = [];
  try {
    const response = await fetch(`${platform.apiUrl}/v1/notifications`, {
      headers: {
        authorization: `Bearer ${await tokenFor(tenant)}`,
        accept: 'text/event-stream',
        ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
      },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    for await (const event of sseEvents(response)) {
      const notification = JSON.parse(event.data) as NotificationJson;
      expect(event.id).toBe(String(notification.seq));
      expect(event.event).toBe(notification.type);
      seen.push(notification);
      if (enough(seen)) break;
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return seen;
}

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

    const history = await api<{ messages: Array<{ runId: string; message: ChatMessage }> }>(
      platform,
      'GET',
      `/v1/conversations/${taskId}/messages`,
      'acme',
    );
    expect(history.body.messages[0]!.message).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/^\[Scheduled task, due .*\] \[scenario:calculator\] What is 12/),
    });
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
    const history = await api<{ messages: Array<{ runId: string }> }>(
      platform,
      'GET',
      `/v1/conversations/${taskId}/messages`,
      'globex',
    );
    expect(new Set(history.body.messages.map((m) => m.runId))).toEqual(new Set(fires.map((f) => f.runId)));
    // Another tenant sees nothing of it.
    expect((await api(platform, 'GET', `/v1/tasks/${taskId}/fires`, 'acme')).status).toBe(404);
  });

  it('an event posted to /v1/events fires the event tasks whose filter matches, with the event in the message', async () => {
    const created = await api<TaskJson>(platform, 'POST', '/v1/tasks', 'initech', {
      trigger: {
        type: 'event',
        source: 'flights',
        eventType: 'price.dropped',
        filter: 'price < 300 and route == "SFO-NRT"',
      },
      action: { instruction: '[scenario:plain] Tell me about this fare' },
    });
    expect(created.status).toBe(201);
    const taskId = created.body.taskId;
    const miss = await api<{ firedTaskIds: string[] }>(platform, 'POST', '/v1/events', 'initech', {
      source: 'flights',
      type: 'price.dropped',
      data: { price: 450, route: 'SFO-NRT' },
    });
    expect(miss).toMatchObject({ status: 202, body: { firedTaskIds: [] } });
    const hit = await api<{ eventId: string; firedTaskIds: string[] }>(platform, 'POST', '/v1/events', 'initech', {
      eventId: 'fare-1',
      source: 'flights',
      type: 'price.dropped',
      data: { price: 280, route: 'SFO-NRT' },
    });
    expect(hit.body).toEqual({ eventId: 'fare-1', firedTaskIds: [taskId] });
    const [fire] = await settledFires(taskId, 'initech', 1);
    expect(fire).toMatchObject({ kind: 'event', status: 'succeeded' });
    const history = await api<{ messages: Array<{ message: ChatMessage }> }>(
      platform,
      'GET',
      `/v1/conversations/${taskId}/messages`,
      'initech',
    );
    expect(history.body.messages[0]!.message).toMatchObject({
      role: 'user',
      content: expect.stringContaining('[Event trigger: flights price.dropped, event fare-1'),
    });
    expect((history.body.messages[0]!.message as { content: string }).content).toContain('"price":280');
  });
});

describe('a triggered run that stops for approval', () => {
  it('tells the user on the stream, shows the task as its source, and once approved delivers the result and completes the task', async () => {
    const created = await api<TaskJson>(platform, 'POST', '/v1/tasks', 'wayne', {
      name: 'archive',
      trigger: { type: 'schedule', at: new Date(Date.now() + 1_500).toISOString() },
      action: { instruction: '[scenario:gated-archive] Archive the EMEA orders older than 90 days. (triggered)' },
      output: { channel: 'sse' },
    });
    expect(created.status).toBe(201);
    const taskId = created.body.taskId;
    const [fire] = await settledFires(taskId, 'wayne', 1);
    expect(fire).toMatchObject({ status: 'waiting_approval', runId: `run_${fire!.fireId}` });
    expect((await api<TaskJson>(platform, 'GET', `/v1/tasks/${taskId}`, 'wayne')).body.status).toBe('PENDING_APPROVAL');

    // The user is told: the structured request on the tenant's stream.
    const asked = await notifications('wayne', (seen) => seen.some((n) => n.type === 'fire.approval_requested'));
    const request = asked.find((n) => n.type === 'fire.approval_requested')!;
    expect(request).toMatchObject({
      taskId,
      fireId: fire!.fireId,
      status: 'waiting_approval',
      taskStatus: 'PENDING_APPROVAL',
    });
    // The agent pool recorded the trigger itself (the orchestrator passed the source on).
    const [approval] = (await api<{ approvals: ApprovalJson[] }>(platform, 'GET', '/v1/approvals', 'wayne')).body
      .approvals;
    expect(approval).toMatchObject({
      agentName: 'archive_orders',
      conversationId: taskId,
      source: { kind: 'trigger', taskId },
    });
    // Another tenant sees neither the approval nor the notification.
    expect(
      (await api<{ approvals: ApprovalJson[] }>(platform, 'GET', '/v1/approvals', 'stark')).body.approvals,
    ).toEqual([]);
    expect(await notifications('stark', () => false, undefined, 2_500)).toEqual([]);

    const approved = await api<TurnJson>(platform, 'POST', `/v1/approvals/${approval!.approvalId}`, 'wayne', {
      decision: 'approve',
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'completed' });

    // The resumed run's result is the fire's; the one-time task is COMPLETED.
    const settled = await waitFor('the fire to get the approved result', async () => {
      const { body } = await api<{ fires: FireJson[] }>(platform, 'GET', `/v1/tasks/${taskId}/fires`, 'wayne');
      return body.fires[0]?.status === 'succeeded' ? body.fires[0] : undefined;
    });
    expect(settled).toMatchObject({
      fireId: fire!.fireId,
      result: { status: 'completed', response: expect.stringContaining('Archive result') },
    });
    expect((await api<TaskJson>(platform, 'GET', `/v1/tasks/${taskId}`, 'wayne')).body).toMatchObject({
      status: 'COMPLETED',
      lastOutcome: 'succeeded',
    });

    // Reconnecting after the request's id delivers the result, nothing before it.
    const after = await notifications('wayne', (seen) => seen.some((n) => n.type === 'fire.finished'), request.seq);
    expect(after.every((n) => n.seq > request.seq)).toBe(true);
    expect(after.find((n) => n.type === 'fire.finished')).toMatchObject({
      taskId,
      fireId: fire!.fireId,
      status: 'succeeded',
      taskStatus: 'COMPLETED',
      result: { response: expect.stringContaining('Archive result') },
    });
  });
});

describe('webhook URLs that reach inside', () => {
  it('are refused at creation with 400 EGRESS_REFUSED in the documented envelope, naming the reason and never the secret', async () => {
    const spec = (url: string) => ({
      name: 'hook',
      trigger: { type: 'schedule', cron: '0 0 1 1 *' },
      action: { instruction: 'x' },
      output: { channel: 'webhook', url },
    });
    const cases: Array<[string, string]> = [
      [`https://127.0.0.1:${platform.ports.orchestrator}/`, 'loopback'],
      [`https://2130706433:${platform.ports.trigger}/`, 'loopback'],
      [`https://[::ffff:127.0.0.1]:${new URL(platform.redisUrl).port}/`, 'loopback'],
      [`https://[::1]:${new URL(platform.natsUrl).port}/`, 'loopback'],
      ['https://localhost/', 'loopback'],
      ['https://0.0.0.0/', 'unspecified'],
      ['https://169.254.169.254/latest/meta-data/', 'metadata'],
      ['https://hookuser:hunter2-e2e@hooks.example.com/in', 'userinfo'],
    ];
    for (const [url, reason] of cases) {
      const { status, body } = await api<{ error: { code: string; message: string; details?: { reason?: string } } }>(
        platform,
        'POST',
        '/v1/tasks',
        'wayne',
        spec(url),
      );
      expect({ url, status, code: body.error.code, reason: body.error.details?.reason }).toEqual({
        url,
        status: 400,
        code: 'EGRESS_REFUSED',
        reason,
      });
      expect(body.error.message).toMatch(/^output\.url: /);
      expect(JSON.stringify(body)).not.toMatch(/hunter2|hookuser/);
    }
    expect(
      (await api<{ tasks: unknown[] }>(platform, 'GET', '/v1/tasks', 'wayne')).body.tasks.filter((t) =>
        JSON.stringify(t).includes('"hook"'),
      ),
    ).toEqual([]);
  });
});
