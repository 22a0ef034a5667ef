// A2A (docs/protocols.md#a2a), driven only by the official `@a2a-js/sdk` client: every agent is
// an A2A agent with its card; a task is a durable run (task id = run id, context id =
// conversation id) that works, waits for input (an approval: the next message answers it),
// completes with its answer as an artifact, is canceled, pushes signed notifications, and survives
// an orchestrator killed mid-run; another tenant reaches none of it.
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { Role, StreamResponse, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { A2AError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { ManagedProcess } from '@platform/testing';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAST_RECOVERY,
  api,
  bootPlatform,
  startRunnerProcess,
  tokenFor,
  waitFor,
  waitForCatalog,
  type SuitePlatform,
} from './support.js';

const TENANT = 'a2a-tenant';
const OTHER_TENANT = 'a2a-other-tenant';
const QUESTION = '[scenario:calculator] What is 12 * (3 + 4)?';

const ARCHIVE = '[scenario:gated-archive] Archive the EMEA orders older than 90 days.';
const BOOKING = '[scenario:slow-booking] book me tuesday at ten';
/** The second api replica's wait for a turn: less than the slow booking's 3 s tool call. */
const SHORT_WAIT_MS = 1_000;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let platform: SuitePlatform;
let runners: ManagedProcess[] = [];
const received: Received[] = [];
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  // The push receiver: a real HTTP server on loopback, which this suite's egress allowlist admits.
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  platform = await bootPlatform('a2a', {
    env: {
      orchestrator: {
        ...FAST_RECOVERY,
        RUN_WEBHOOK_ALLOW_HTTP: 'true',
        EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
        RUN_WEBHOOK_INTERVAL_MS: '50',
      },
    },
    // A second api replica whose wait (TURN_WAIT_MS) is shorter than the slow booking's tool call.
    apiReplicas: 2,
    apiReplicaEnv: (replica): Record<string, string> => (replica === 1 ? { TURN_WAIT_MS: String(SHORT_WAIT_MS) } : {}),
  });
  runners = [
    await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts'),
    await startRunnerProcess(platform, 'booking-runner', 'test/e2e/src/fixtures/booking-runner.ts'),
  ];
  await waitForCatalog(platform.apiUrl, ['archive_orders', 'book_slot']);
}, 300_000);
afterAll(async () => {
  for (const runner of runners) await runner.stop();
  await platform?.stop();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

/** A fetch that sends the tenant's token, as an A2A client of the platform configures it. */
async function authedFetch(tenant: string): Promise<typeof fetch> {
  const token = await tokenFor(tenant);
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

async function factoryFor(tenant: string): Promise<ClientFactory> {
  const fetchImpl = await authedFetch(tenant);
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
}

/** A client of one agent, from its own card (on the first api replica unless told another). */
async function clientOf(tenant: string, agent = 'default', apiUrl = platform.apiUrl): Promise<Client> {
  return (await factoryFor(tenant)).createFromUrl(`${apiUrl}/v1/agents/${agent}/a2a/.well-known/agent-card.json`, '');
}

function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

function send(
  client: Client,
  message: Message,
  configuration: Partial<NonNullable<Parameters<Client['sendMessage']>[0]['configuration']>> = {},
) {
  return client.sendMessage({
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: false,
      ...configuration,
    },
    metadata: undefined,
  });
}

function asTask(result: Message | Task): Task {
  expect('messageId' in result).toBe(false);
  return result as Task;
}

/** The text of a task's artifacts, in order. */
function artifactText(task: Task): string {
  return task.artifacts
    .flatMap((a) => a.parts)
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join('');
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

interface RunJson {
  runId: string;
  conversationId: string;
  status: string;
  protocol: string | null;
  result: { response: string };
}

describe('agent cards', () => {
  it("resolves an agent's card with the SDK's resolver: its JSON-RPC endpoint, streaming, push notifications, bearer tokens, its skill", async () => {
    const created = await api(
      platform,
      'POST',
      '/v1/agents',
      { tenant: TENANT, roles: ['developer'] },
      {
        name: 'a2a-helper',
        description: 'Answers arithmetic questions.',
        labels: { team: 'maths' },
        instructions: 'You help with arithmetic.',
        tools: ['calculator'],
      },
    );
    expect(created.status).toBe(201);
    const client = await clientOf(TENANT, 'a2a-helper');
    const card = await client.getAgentCard();
    expect(card).toMatchObject({
      name: 'a2a-helper',
      description: 'Answers arithmetic questions.',
      supportedInterfaces: [
        { url: `${platform.apiUrl}/v1/agents/a2a-helper/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true, pushNotifications: true },
      skills: [
        expect.objectContaining({
          name: 'a2a-helper',
          description: 'Answers arithmetic questions.',
          tags: ['team=maths'],
        }),
      ],
    });
    expect(card.securitySchemes['bearer']?.scheme).toMatchObject({
      $case: 'httpAuthSecurityScheme',
      value: { scheme: 'Bearer' },
    });
  });

  it("serves the tenant's default agent at /.well-known/agent-card.json, 401 without a token", async () => {
    const client = await (await factoryFor(TENANT)).createFromUrl(platform.apiUrl);
    const card = await client.getAgentCard();
    expect(card.name).toBe('default');
    expect(card.supportedInterfaces[0]!.url).toBe(`${platform.apiUrl}/v1/agents/default/a2a`);
    const anonymous = await fetch(`${platform.apiUrl}/.well-known/agent-card.json`);
    expect(anonymous.status).toBe(401);
  });

  it("answers an agent the tenant does not have as not found (another tenant's agent included)", async () => {
    const response = await fetch(`${platform.apiUrl}/v1/agents/a2a-helper/a2a/.well-known/agent-card.json`, {
      headers: { authorization: `Bearer ${await tokenFor(OTHER_TENANT)}` },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'AGENT_NOT_FOUND' } });
  });
});

describe('message/send and tasks/get', () => {
  it('runs a task to completion: the answer is an artifact, the task is the run (id, context, protocol a2a)', async () => {
    const client = await clientOf(TENANT);
    const task = asTask(await send(client, userMessage(QUESTION)));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(task)).toMatch(/84/);
    const run = await api<RunJson>(platform, 'GET', `/v1/runs/${task.id}`, TENANT);
    expect(run.body).toMatchObject({
      runId: task.id,
      conversationId: task.contextId,
      status: 'completed',
      protocol: 'a2a',
    });
    expect(run.body.result.response).toBe(artifactText(task));

    const read = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(read).toMatchObject({
      id: task.id,
      contextId: task.contextId,
      status: { state: TaskState.TASK_STATE_COMPLETED },
    });
    expect(artifactText(read)).toBe(artifactText(task));
  });

  it("continues a context: the next task's run is in the same conversation", async () => {
    const client = await clientOf(TENANT);
    const first = asTask(await send(client, userMessage(QUESTION)));
    const second = asTask(
      await send(client, userMessage('[scenario:calculator] What is 2 + 2?', { contextId: first.contextId })),
    );
    expect(second.id).not.toBe(first.id);
    expect(second.contextId).toBe(first.contextId);
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("answers an unknown task, and another tenant's, as not found", async () => {
    const client = await clientOf(TENANT);
    const task = asTask(await send(client, userMessage(QUESTION)));
    const other = await clientOf(OTHER_TENANT);
    await expect(other.getTask({ tenant: '', id: task.id, historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(
      client.getTask({ tenant: '', id: 'run_00000000-0000-4000-8000-000000000000', historyLength: undefined }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(other.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
  });
});

describe('A2A 0.3 clients', () => {
  it('answers the 0.3 method names (message/send, tasks/get) through the SDK compat layer', async () => {
    const fetchImpl = await authedFetch(TENANT);
    const card = await (await clientOf(TENANT)).getAgentCard();
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
      }),
    );
    const legacy = await factory.createFromAgentCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, protocolVersion: '0.3' })),
    });
    expect(legacy.protocolVersion).toBe('0.3');
    const task = asTask(await send(legacy, userMessage(QUESTION)));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(task)).toMatch(/84/);
    const read = await legacy.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe('message/stream', () => {
  it('streams the task: the task first, working, the answer as artifact chunks, then completed', async () => {
    const client = await clientOf(TENANT);
    const events = await collect(
      client.sendMessageStream({
        tenant: '',
        message: userMessage(QUESTION),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifactUpdate');
    const last = events.at(-1)!.payload;
    expect(last).toMatchObject({ $case: 'statusUpdate', value: { status: { state: TaskState.TASK_STATE_COMPLETED } } });
    const task = events[0]!.payload!.value as Task;
    const text = events
      .flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? e.payload.value.artifact!.parts : []))
      .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
      .join('');
    const run = await api<RunJson>(platform, 'GET', `/v1/runs/${task.id}`, TENANT);
    expect(run.body.result.response).toBe(text);
  });
});

describe('input-required', () => {
  it('waits for an approval as input-required; the next message of the task answers it and the same task completes', async () => {
    const client = await clientOf(TENANT);
    const waiting = asTask(await send(client, userMessage(`${ARCHIVE} (a2a-approve)`)));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const parts = waiting.status!.message!.parts;
    expect(parts[0]!.content).toMatchObject({ $case: 'text' });
    expect(parts[1]!.content).toMatchObject({
      $case: 'data',
      value: { pending: [expect.objectContaining({ agentName: 'archive_orders', waitingFor: 'approval' })] },
    });
    const read = await client.getTask({ tenant: '', id: waiting.id, historyLength: undefined });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const answered = asTask(
      await send(client, userMessage('yes', { taskId: waiting.id, contextId: waiting.contextId })),
    );
    expect(answered).toMatchObject({ id: waiting.id, contextId: waiting.contextId });
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(answered)).toMatch(/^Archive result: /);
    // The answer is the task's next run, in the same conversation.
    const answerRun = await api<RunJson>(platform, 'GET', `/v1/runs/${waiting.id}-c1`, TENANT);
    expect(answerRun.body).toMatchObject({ conversationId: waiting.contextId, status: 'completed', protocol: 'a2a' });
    const after = await client.getTask({ tenant: '', id: waiting.id, historyLength: undefined });
    expect(after.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    // An ended task takes no more messages.
    await expect(send(client, userMessage('and again', { taskId: waiting.id }))).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
  });

  it("answers a waiting task with a message in its context that names no task; another tenant's answer finds no task", async () => {
    const client = await clientOf(TENANT);
    const waiting = asTask(await send(client, userMessage(`${ARCHIVE} (a2a-context)`)));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const other = await clientOf(OTHER_TENANT);
    await expect(send(other, userMessage('yes', { taskId: waiting.id }))).rejects.toBeInstanceOf(TaskNotFoundError);
    const answered = asTask(await send(client, userMessage('yes', { contextId: waiting.contextId })));
    expect(answered.id).toBe(waiting.id);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe('tasks/cancel', () => {
  it('cancels a working task: its run stops and the task is canceled; an ended one is not cancelable', async () => {
    const client = await clientOf(TENANT);
    const started = asTask(await send(client, userMessage(`${BOOKING} (a2a-cancel)`), { returnImmediately: true }));
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    expect(cancelled).toMatchObject({ id: started.id, status: { state: TaskState.TASK_STATE_CANCELED } });
    const ended = await waitFor('the run to stop', async () => {
      const task = await client.getTask({ tenant: '', id: started.id, historyLength: undefined });
      return task.status?.state === TaskState.TASK_STATE_WORKING ? undefined : task;
    });
    expect(ended.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const run = await api<RunJson>(platform, 'GET', `/v1/runs/${started.id}`, TENANT);
    expect(run.body.status).toBe('cancelled');
    await expect(client.cancelTask({ tenant: '', id: started.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
  });
});

describe('push notifications', () => {
  it("POSTs each change of the task's state to the config's URL, with its token, signed with the tenant's secret", async () => {
    const client = await clientOf(TENANT);
    const task = asTask(
      await send(client, userMessage(QUESTION), {
        taskPushNotificationConfig: {
          tenant: '',
          id: 'receiver-1',
          taskId: '',
          url: `${receiverUrl}/a2a-push`,
          token: 'client-token-1',
          authentication: undefined,
        },
      }),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const push = await waitFor('the completed push', async () =>
      received.find((r) => {
        const event = StreamResponse.fromJSON(JSON.parse(r.body));
        return (
          event.payload?.$case === 'statusUpdate' &&
          event.payload.value.taskId === task.id &&
          event.payload.value.status?.state === TaskState.TASK_STATE_COMPLETED
        );
      }),
    );
    expect(push.path).toBe('/a2a-push');
    expect(push.headers['x-a2a-notification-token']).toBe('client-token-1');
    expect(push.headers['content-type']).toBe('application/a2a+json');
    const event = StreamResponse.fromJSON(JSON.parse(push.body));
    expect(event.payload?.value).toMatchObject({ contextId: task.contextId, metadata: { runId: task.id } });

    // What a receiver does: HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>` with the tenant's secret.
    const settings = await api<{ secret: string }>(platform, 'GET', '/v1/webhook-settings', {
      tenant: TENANT,
      roles: ['admin'],
    });
    const id = String(push.headers['webhook-id']);
    const timestamp = String(push.headers['webhook-timestamp']);
    const expected = createHmac('sha256', Buffer.from(settings.body.secret))
      .update(`${id}.${timestamp}.${push.body}`)
      .digest('base64');
    expect(push.headers['webhook-signature']).toBe(`v1,${expected}`);

    // The config is the task's: read, listed (credentials never), deleted.
    const config = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'receiver-1' });
    expect(config).toMatchObject({ id: 'receiver-1', taskId: task.id, url: `${receiverUrl}/a2a-push` });
    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs.map((c) => c.id)).toEqual(['receiver-1']);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'receiver-1' });
    await expect(
      client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'receiver-1' }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('refuses a URL that points inside (the egress guard), and another tenant reaches no config', async () => {
    const client = await clientOf(TENANT);
    const task = asTask(await send(client, userMessage(QUESTION)));
    const inside = client.createTaskPushNotificationConfig({
      tenant: '',
      id: 'metadata',
      taskId: task.id,
      url: 'http://169.254.169.254/latest',
      token: '',
      authentication: undefined,
    });
    await expect(inside).rejects.toBeInstanceOf(A2AError);
    await expect(inside).rejects.toThrow(/EGRESS_REFUSED/);
    const other = await clientOf(OTHER_TENANT);
    await expect(
      other.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});

describe('a blocking send that outlasts the api wait', () => {
  it('answers with the task as it stands (working), not an error; the run goes on and the task completes', async () => {
    const client = await clientOf(TENANT, 'default', platform.apiUrls[1]);
    const task = asTask(await send(client, userMessage(`${BOOKING} (a2a-wait)`)));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(task.artifacts).toEqual([]);
    const done = await waitFor(
      'the task to complete after the wait',
      async () => {
        const read = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
        return read.status?.state === TaskState.TASK_STATE_COMPLETED ? read : undefined;
      },
      30_000,
    );
    expect(artifactText(done)).toMatch(/^Booked: tuesday-10:00/);
  });
});

describe('durability', () => {
  it('keeps a task through an orchestrator SIGKILL: its run resumes and the task completes', async () => {
    const client = await clientOf(TENANT);
    const started = asTask(await send(client, userMessage(`${BOOKING} (a2a-durable)`), { returnImmediately: true }));
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    const done = await waitFor(
      'the resumed task to complete',
      async () => {
        // While the api reconnects to the new orchestrator, a read may find it unavailable: read again.
        const task = await client
          .getTask({ tenant: '', id: started.id, historyLength: undefined })
          .catch((error: unknown) => {
            if (error instanceof A2AError && /UNAVAILABLE/.test(error.message)) return undefined;
            throw error;
          });
        return task?.status?.state === TaskState.TASK_STATE_COMPLETED ? task : undefined;
      },
      60_000,
    );
    expect(artifactText(done)).toMatch(/^Booked: tuesday-10:00/);
  });
});
