import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Role, TaskState, type AgentCard, type Message, type Task } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';

/**
 * A small A2A agent for tests, served with `@a2a-js/sdk`'s own server classes (DefaultRequestHandler
 * over an in-memory task store, the JSON-RPC transport handler) on a free loopback port. What it
 * does depends on the message text:
 * - `ask: <question>`: the task waits for input (`input-required`, the question as its status
 *   message); the next message of the task completes it with `answered: <text>`.
 * - `fail: <why>`: the task fails with that status message.
 * - `hold`: the task works until it is cancelled (tasks/cancel) or `release()` is called.
 * - anything else: the task completes with one artifact, `done: <text>`.
 */
export interface A2aTestAgent {
  /** The agent card's URL. */
  cardUrl: string;
  /** The `authorization` header of every JSON-RPC request, in order ('' when absent). */
  authorizations: string[];
  /** The ids of tasks cancelled through tasks/cancel. */
  cancelled: string[];
  /** The JSON-RPC method of every request, in order (`SendMessage`, `GetTask`, `CancelTask`, …). */
  methods: string[];
  /** How many tasks were created (a message that starts a task). */
  tasksCreated(): number;
  /** Completes every held task with `released`. */
  release(): void;
  stop(): Promise<void>;
}

const textOf = (message: Message | undefined): string =>
  (message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

function agentMessage(text: string, taskId: string, contextId: string): Message {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

class ScriptedExecutor implements AgentExecutor {
  created = 0;
  /** Held tasks: their bus, and the end of their `execute` (the SDK closes a bus whose executor returned). */
  private readonly held = new Map<string, { bus: ExecutionEventBus; contextId: string; done: () => void }>();

  execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const text = textOf(context.userMessage);
    const continued = context.task;
    if (!continued) this.created += 1;
    const task: Task = continued ?? {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [context.userMessage],
      metadata: undefined,
    };
    bus.publish(AgentEvent.task(task));
    const status = (state: TaskState, said?: string): void =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: said === undefined ? undefined : agentMessage(said, taskId, contextId),
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
    const complete = (answer: string): void => {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'answer',
            name: 'answer',
            description: '',
            parts: [
              { content: { $case: 'text', value: answer }, metadata: undefined, filename: '', mediaType: 'text/plain' },
            ],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      status(TaskState.TASK_STATE_COMPLETED);
      bus.finished();
    };
    if (continued) {
      complete(`answered: ${text}`);
    } else if (text.startsWith('ask: ')) {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, text.slice('ask: '.length));
      bus.finished();
    } else if (text.startsWith('fail: ')) {
      status(TaskState.TASK_STATE_FAILED, text.slice('fail: '.length));
      bus.finished();
    } else if (text.includes('hold')) {
      status(TaskState.TASK_STATE_WORKING);
      return new Promise<void>((done) => this.held.set(taskId, { bus, contextId, done }));
    } else {
      status(TaskState.TASK_STATE_WORKING);
      complete(`done: ${text}`);
    }
    return Promise.resolve();
  }

  cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const held = this.held.get(taskId);
    this.held.delete(taskId);
    const target = held?.bus ?? bus;
    target.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: held?.contextId ?? '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
    target.finished();
    held?.done();
    return Promise.resolve();
  }

  release(): void {
    for (const [taskId, { bus, contextId, done }] of this.held) {
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state: TaskState.TASK_STATE_COMPLETED,
            message: agentMessage('released', taskId, contextId),
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
      bus.finished();
      done();
    }
    this.held.clear();
  }
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the test agent on 127.0.0.1 (a free port). */
export async function startA2aTestAgent(options: { name?: string } = {}): Promise<A2aTestAgent> {
  const executor = new ScriptedExecutor();
  const authorizations: string[] = [];
  const cancelled: string[] = [];
  const methods: string[] = [];
  let base = '';
  const card = (): AgentCard => ({
    name: options.name ?? 'Test forecaster',
    description: 'Answers from a script, for tests.',
    supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'forecast',
        name: 'Forecast',
        description: 'A forecast for a place.',
        tags: ['weather'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  });
  // Made once the port (and so the card's endpoint) is known.
  const served: { transport?: JsonRpcTransportHandler } = {};
  const server: Server = createServer((request, response) => {
    void (async () => {
      if (request.method === 'GET' && request.url === '/.well-known/agent-card.json') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card()));
        return;
      }
      const transport = served.transport;
      if (request.method !== 'POST' || request.url !== '/a2a' || !transport) {
        response.writeHead(404).end();
        return;
      }
      authorizations.push(request.headers.authorization ?? '');
      const body = JSON.parse(await bodyOf(request)) as { method?: string; params?: { id?: string } };
      methods.push(body.method ?? '');
      if (body.method === 'CancelTask' && body.params?.id) cancelled.push(body.params.id);
      const version = request.headers['a2a-version'];
      const reply = await transport.handle(
        body,
        new ServerCallContext({ ...(typeof version === 'string' ? { requestedVersion: version } : {}) }),
      );
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    })().catch((err: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  served.transport = new JsonRpcTransportHandler(new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor));
  return {
    cardUrl: `${base}/.well-known/agent-card.json`,
    authorizations,
    cancelled,
    methods,
    tasksCreated: () => executor.created,
    release: () => executor.release(),
    stop: () =>
      new Promise<void>((resolve) => {
        executor.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
