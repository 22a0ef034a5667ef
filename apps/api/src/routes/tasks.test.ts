import type { triggerV1 } from '@platform/proto';
import { errors, GrpcHealthProbe, PlaintextTransport, type PromiseClient } from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triggerEdgeApp } from '../test-support/trigger-edge-app.js';

const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const TASK_ID = 'task_00000000-0000-4000-8000-000000000001';
const seen: { method: string; request: Record<string, unknown> }[] = [];

const task: triggerV1.Task = {
  taskId: TASK_ID,
  tenantId: 'acme',
  userId: 'alice',
  name: 'digest',
  specJson: JSON.stringify({
    trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'UTC' },
    executor: 'orchestrator',
    action: { instruction: 'Summarize' },
  }),
  status: 'ACTIVE',
  triggerType: 'schedule',
  nextFireAt: new Date('2026-06-02T08:00:00Z'),
  lastFireAt: undefined,
  lastOutcome: '',
  lastError: {
    code: 'FILTER_EVALUATION_FAILED',
    message: 'Expected a number, but got a text instead.',
    at: new Date('2026-06-01T12:00:00Z'),
  },
  createdAt: new Date('2026-06-01T00:00:00Z'),
  updatedAt: new Date('2026-06-01T00:00:00Z'),
};
const fire: triggerV1.Fire = {
  fireId: 'fire_1',
  taskId: TASK_ID,
  fireKey: 'manual:k1',
  kind: 'manual',
  scheduledAt: new Date('2026-06-01T10:00:00Z'),
  status: 'succeeded',
  attempts: 1,
  missedCount: 0,
  runId: 'run_fire_1',
  resultJson: '{"response":"done"}',
  errorCode: '',
  errorMessage: '',
  startedAt: new Date('2026-06-01T10:00:00Z'),
  finishedAt: new Date('2026-06-01T10:00:01Z'),
};

/** The trigger service at its port: scoped by tenant like the real one, which has its own suite. */
function owned(request: { tenantId: string; taskId?: string }): void {
  if (request.tenantId !== 'acme' || (request.taskId !== undefined && request.taskId !== TASK_ID))
    throw errors.notFound('TASK_NOT_FOUND', `no task '${request.taskId}'`);
}
const trigger = new Proxy(
  {},
  {
    get: (_target, method: string) => async (request: Record<string, unknown>) => {
      seen.push({ method, request });
      if (method === 'createTask') {
        const spec = JSON.parse(request['specJson'] as string) as Record<string, unknown>;
        // The trigger service's own checks (its cron engine) come after the api's.
        if ((spec['trigger'] as { cron?: string }).cron === 'every day') {
          throw errors.invalidArgument('INVALID_TASK_SPEC', 'trigger.cron: not a valid cron pattern', {
            details: { issues: [{ field: 'trigger.cron', message: 'not a valid cron pattern' }] },
          });
        }
        return {
          task,
          duplicate: request['requestId'] === 'again',
          webhookSecret:
            (spec['output'] as { channel?: string } | undefined)?.channel === 'webhook' ? 'whsec_test' : '',
        };
      }
      owned(request as { tenantId: string; taskId?: string });
      if (method === 'listTasks') return { tasks: [task], nextPageToken: '' };
      if (method === 'listFires') return { fires: [fire], nextPageToken: 'next' };
      if (method === 'runTaskNow')
        return { fire: { ...fire, status: 'pending', resultJson: '', finishedAt: undefined }, duplicate: false };
      if (method === 'deleteTask') return {};
      if (method === 'publishEvent')
        return { eventId: (request['eventId'] as string) || 'evt_assigned', firedTaskIds: [TASK_ID] };
      return { task };
    },
  },
) as PromiseClient<triggerV1.TriggerServiceClient>;

/** A spec the api's checks accept. */
const SPEC = { trigger: { type: 'schedule', cron: '0 8 * * *' }, action: { instruction: 'Summarize' } };

let app: FastifyInstance;
// Nothing listens there: the dependency is down, whatever the transport.
const deadProbe = new GrpcHealthProbe('127.0.0.1:1', new PlaintextTransport(), 'orchestrator');
let auth: string;
let otherTenant: string;

beforeAll(async () => {
  const sign = (sub: string) =>
    new SignJWT({ sub })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
  auth = `Bearer ${await sign('acme')}`;
  otherTenant = `Bearer ${await sign('globex')}`;
  app = triggerEdgeApp(SECRET, trigger, deadProbe);
  await app.ready();
});
afterAll(async () => {
  await app.close();
  deadProbe.close();
});

function call(
  method: string,
  url: string,
  options: { body?: unknown; headers?: Record<string, string>; authorization?: string } = {},
) {
  return app.inject({
    method: method as 'GET',
    url,
    headers: {
      authorization: options.authorization ?? auth,
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
  });
}

describe('/v1/tasks', () => {
  it('creates a task for the token tenant and user: 201, the spec back, the idempotency key forwarded', async () => {
    const response = await call('POST', '/v1/tasks', {
      body: { trigger: { type: 'schedule', cron: '0 8 * * *' }, action: { instruction: 'Summarize' } },
      headers: { 'idempotency-key': 'k1' },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      taskId: TASK_ID,
      status: 'ACTIVE',
      nextFireAt: '2026-06-02T08:00:00.000Z',
      lastFireAt: null,
      spec: { executor: 'orchestrator' },
    });
    expect(seen.at(-1)).toMatchObject({
      method: 'createTask',
      request: { tenantId: 'acme', userId: 'acme', requestId: 'k1' },
    });
    expect((await call('POST', '/v1/tasks', { body: SPEC, headers: { 'idempotency-key': 'again' } })).statusCode).toBe(
      200,
    );
    const hooked = await call('POST', '/v1/tasks', {
      body: { ...SPEC, output: { channel: 'webhook', url: 'https://example.com/h' } },
    });
    expect(hooked.json()).toMatchObject({ taskId: TASK_ID, webhookSecret: 'whsec_test' });
    expect(response.json()).not.toHaveProperty('webhookSecret');
  });

  it('refuses an invalid spec itself with 400 INVALID_TASK_SPEC, every field at fault named, and sends nothing on', async () => {
    const before = seen.length;
    const response = await call('POST', '/v1/tasks', { body: { action: {}, misfire: { policy: 'catch_up' } } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: {
        code: 'INVALID_TASK_SPEC',
        message: expect.stringMatching(/^trigger: /),
        details: {
          issues: [
            { field: 'trigger', message: expect.any(String) },
            { field: 'misfire.windowSeconds', message: 'catch_up needs windowSeconds' },
          ],
        },
      },
    });
    expect((await call('POST', '/v1/tasks', { body: [1, 2] })).json()).toMatchObject({
      error: { code: 'INVALID_TASK_SPEC' },
    });
    expect((await call('PUT', `/v1/tasks/${TASK_ID}`, { body: { ...SPEC, action: {} } })).json()).toMatchObject({
      error: {
        code: 'INVALID_TASK_SPEC',
        message: 'action.instruction: the orchestrator executor needs an instruction',
      },
    });
    expect(seen.length).toBe(before);
  });

  it("passes on the trigger service's own refusal (a cron pattern its engine cannot run)", async () => {
    const response = await call('POST', '/v1/tasks', {
      body: { ...SPEC, trigger: { type: 'schedule', cron: 'every day' } },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: {
        code: 'INVALID_TASK_SPEC',
        message: 'trigger.cron: not a valid cron pattern',
        details: { issues: [{ field: 'trigger.cron', message: 'not a valid cron pattern' }] },
      },
    });
  });

  it('lists, reads, updates, pauses, resumes and deletes', async () => {
    expect((await call('GET', '/v1/tasks?pageSize=10')).json()).toMatchObject({
      tasks: [{ taskId: TASK_ID }],
      nextPageToken: null,
    });
    expect((await call('GET', `/v1/tasks/${TASK_ID}`)).json()).toMatchObject({
      taskId: TASK_ID,
      lastError: {
        code: 'FILTER_EVALUATION_FAILED',
        message: 'Expected a number, but got a text instead.',
        at: '2026-06-01T12:00:00.000Z',
      },
    });
    expect(
      (
        await call('PUT', `/v1/tasks/${TASK_ID}`, {
          body: { ...SPEC, trigger: { type: 'schedule', cron: '0 9 * * *' } },
        })
      ).statusCode,
    ).toBe(200);
    expect((await call('POST', `/v1/tasks/${TASK_ID}/pause`)).statusCode).toBe(200);
    expect((await call('POST', `/v1/tasks/${TASK_ID}/resume`)).statusCode).toBe(200);
    expect((await call('DELETE', `/v1/tasks/${TASK_ID}`)).statusCode).toBe(204);
    expect(seen.slice(-6).map((s) => s.method)).toEqual([
      'listTasks',
      'getTask',
      'updateTask',
      'pauseTask',
      'resumeTask',
      'deleteTask',
    ]);
    expect((await call('GET', '/v1/tasks?pageSize=0')).json()).toMatchObject({ error: { code: 'INVALID_QUERY' } });
  });

  it('runs a task now (202) and lists its fires', async () => {
    const run = await call('POST', `/v1/tasks/${TASK_ID}/run`, { headers: { 'idempotency-key': 'run-1' } });
    expect(run.statusCode).toBe(202);
    expect(run.json()).toMatchObject({ fireId: 'fire_1', status: 'pending', result: null, error: null });
    expect(seen.at(-1)).toMatchObject({ method: 'runTaskNow', request: { requestId: 'run-1' } });
    const fires = (await call('GET', `/v1/tasks/${TASK_ID}/fires`)).json();
    expect(fires).toEqual({
      fires: [
        {
          fireId: 'fire_1',
          taskId: TASK_ID,
          kind: 'manual',
          scheduledAt: '2026-06-01T10:00:00.000Z',
          status: 'succeeded',
          attempts: 1,
          missedCount: 0,
          runId: 'run_fire_1',
          result: { response: 'done' },
          error: null,
          startedAt: '2026-06-01T10:00:00.000Z',
          finishedAt: '2026-06-01T10:00:01.000Z',
        },
      ],
      nextPageToken: 'next',
    });
  });

  it('posts an external event for the token tenant: 202 with the tasks it fired', async () => {
    const response = await call('POST', '/v1/events', {
      body: { source: 'gmail', type: 'email.received', data: { from: 'a@amazon.com' } },
    });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ eventId: 'evt_assigned', firedTaskIds: [TASK_ID] });
    expect(seen.at(-1)).toMatchObject({
      method: 'publishEvent',
      request: { tenantId: 'acme', source: 'gmail', type: 'email.received', dataJson: '{"from":"a@amazon.com"}' },
    });
    expect((await call('POST', '/v1/events', { body: { source: 'gmail' } })).json()).toMatchObject({
      error: { code: 'INVALID_EVENT', message: expect.stringMatching(/^type: /) },
    });
  });

  it('answers 404 TASK_NOT_FOUND for another tenant, and 401 without a token', async () => {
    for (const [method, url] of [
      ['GET', `/v1/tasks/${TASK_ID}`],
      ['POST', `/v1/tasks/${TASK_ID}/run`],
      ['GET', `/v1/tasks/${TASK_ID}/fires`],
      ['DELETE', `/v1/tasks/${TASK_ID}`],
    ] as const) {
      const response = await call(method, url, { authorization: otherTenant });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ error: { code: 'TASK_NOT_FOUND' } });
    }
    expect((await call('GET', '/v1/tasks', { authorization: '' })).statusCode).toBe(401);
  });
});
