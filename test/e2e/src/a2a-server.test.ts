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
import { Role, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, tokenFor, type SuitePlatform } from './support.js';

const TENANT = 'a2a-tenant';
const OTHER_TENANT = 'a2a-other-tenant';
const QUESTION = '[scenario:calculator] What is 12 * (3 + 4)?';

let platform: SuitePlatform;

beforeAll(async () => {
  platform = await bootPlatform('a2a', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
});
afterAll(async () => {
  await platform?.stop();
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

/** A client of one agent, from its own card. */
async function clientOf(tenant: string, agent = 'default'): Promise<Client> {
  return (await factoryFor(tenant)).createFromUrl(
    `${platform.apiUrl}/v1/agents/${agent}/a2a/.well-known/agent-card.json`,
    '',
  );
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
