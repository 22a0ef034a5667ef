// AG-UI (`POST /v1/agents/{agent}/ag-ui`), driven only by the official `@ag-ui/client` HttpAgent:
// a run's platform events arrive as AG-UI events, tools run on the platform, the thread is the
// conversation (the tenant's own only), and bad input is a typed error before any event.
import { HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, tokenFor, type SuitePlatform } from './support.js';

const TENANT = 'agui-tenant';
const INTRUDER = 'agui-intruder';
const QUESTION = '[scenario:calculator] What is 12 * (3 + 4)?';

interface Run {
  status: string;
  conversationId: string;
  protocol: string | null;
  result: { response: string; toolCalls: Array<{ name: string; status: string }> };
}

let platform: SuitePlatform;

beforeAll(async () => {
  platform = await bootPlatform('ag-ui', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
});
afterAll(async () => {
  await platform?.stop();
});

async function agentFor(tenant: string, threadId: string, initialMessages: Message[] = []): Promise<HttpAgent> {
  return new HttpAgent({
    url: `${platform.apiUrl}/v1/agents/default/ag-ui`,
    headers: { authorization: `Bearer ${await tokenFor(tenant)}` },
    threadId,
    initialMessages,
  });
}

function userMessage(content: string): Message {
  return { id: randomUUID(), role: 'user', content };
}

/** Runs the agent and keeps every event it received, in order. */
async function runCollecting(agent: HttpAgent): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
  return events;
}

function ofType<T extends BaseEvent>(events: BaseEvent[], type: string): T[] {
  return events.filter((e) => String(e.type) === type) as T[];
}

describe('a run over AG-UI', () => {
  let threadId: string;
  let events: BaseEvent[];
  let agent: HttpAgent;

  beforeAll(async () => {
    threadId = `agui-${randomUUID()}`;
    agent = await agentFor(TENANT, threadId, [userMessage(QUESTION)]);
    events = await runCollecting(agent);
  });

  it('streams the tool call, its result and the answer between RUN_STARTED and RUN_FINISHED, in order', () => {
    const types = events.map((e) => String(e.type));
    expect(types[0]).toBe('RUN_STARTED');
    expect(types.at(-1)).toBe('RUN_FINISHED');
    const order = [
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
    ].map((type) => types.indexOf(type));
    expect(order.every((index) => index > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);

    const [start] = ofType<{ toolCallId: string; toolCallName: string } & BaseEvent>(events, 'TOOL_CALL_START');
    expect(start!.toolCallName).toBe('calculator');
    const args = ofType<{ toolCallId: string; delta: string } & BaseEvent>(events, 'TOOL_CALL_ARGS');
    expect(args.every((a) => a.toolCallId === start!.toolCallId)).toBe(true);
    expect(JSON.parse(args.map((a) => a.delta).join(''))).toEqual({ expression: '12 * (3 + 4)' });
    const [result] = ofType<{ toolCallId: string; content: string } & BaseEvent>(events, 'TOOL_CALL_RESULT');
    expect(result!.toolCallId).toBe(start!.toolCallId);
    expect(result!.content).toContain('84');
    const text = ofType<{ delta: string } & BaseEvent>(events, 'TEXT_MESSAGE_CONTENT')
      .map((e) => e.delta)
      .join('');
    expect(text).toContain('84');

    const started = events[0] as { threadId: string; runId: string } & BaseEvent;
    const finished = events.at(-1) as { threadId: string; runId: string; outcome: { type: string } } & BaseEvent;
    expect(started.threadId).toBe(threadId);
    expect(finished).toMatchObject({ threadId, runId: started.runId, outcome: { type: 'success' } });
  });

  it('streams the arguments as the model writes them: several deltas in order between START and END, adding up to the arguments', () => {
    const types = events.map((e) => String(e.type));
    const [start] = ofType<{ toolCallId: string } & BaseEvent>(events, 'TOOL_CALL_START');
    const args = ofType<{ toolCallId: string; delta: string } & BaseEvent>(events, 'TOOL_CALL_ARGS');
    // llm-sim writes arguments 5 characters at a time: one delta per piece, not the arguments whole.
    expect(args.length).toBeGreaterThan(2);
    expect(args.every((a) => a.delta.length > 0 && a.delta.length <= 5)).toBe(true);
    const startAt = events.indexOf(start!);
    const endAt = types.indexOf('TOOL_CALL_END');
    const argsAt = args.map((a) => events.indexOf(a));
    expect(argsAt.every((at) => at > startAt && at < endAt)).toBe(true);
    expect([...argsAt].sort((a, b) => a - b)).toEqual(argsAt);
    // The call the client rendered from them has exactly the arguments the platform ran the tool with.
    const call = agent.messages[1] as { toolCalls?: Array<{ id: string; function: { arguments: string } }> };
    expect(call.toolCalls?.[0]?.id).toBe(start!.toolCallId);
    expect(args.map((a) => a.delta).join('')).toBe(call.toolCalls?.[0]?.function.arguments);
  });

  it("renders the client's messages from the events: the call, its result, the answer", () => {
    const roles = agent.messages.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const call = agent.messages[1] as { toolCalls?: Array<{ function: { name: string; arguments: string } }> };
    expect(call.toolCalls?.map((c) => c.function.name)).toEqual(['calculator']);
    expect((agent.messages[3] as { content?: string }).content).toContain('84');
  });

  it("is a platform run that records the protocol 'ag_ui', in the thread's conversation", async () => {
    const platformRunId = (events[0]!.metadata as { platformRunId?: string } | undefined)?.platformRunId;
    expect(platformRunId).toMatch(/^run_/);
    const run = await api<Run>(platform, 'GET', `/v1/runs/${platformRunId}`, TENANT);
    expect(run.status).toBe(200);
    expect(run.body.protocol).toBe('ag_ui');
    expect(run.body.conversationId).toBe(threadId);
    expect(run.body.result.toolCalls).toEqual([expect.objectContaining({ name: 'calculator', status: 'success' })]);
    const text = ofType<{ delta: string } & BaseEvent>(events, 'TEXT_MESSAGE_CONTENT')
      .map((e) => e.delta)
      .join('');
    expect(run.body.result.response).toBe(text);
  });

  it('continues the thread: the next run is the same conversation', async () => {
    agent.addMessage(userMessage('[scenario:plain] thanks'));
    const next = await runCollecting(agent);
    expect(String(next.at(-1)?.type)).toBe('RUN_FINISHED');
    const platformRunId = (next[0]!.metadata as { platformRunId?: string } | undefined)?.platformRunId;
    const run = await api<Run>(platform, 'GET', `/v1/runs/${platformRunId}`, TENANT);
    expect(run.body.conversationId).toBe(threadId);
  });

  it("cannot be continued with another tenant's token: CONVERSATION_NOT_FOUND, as for a thread that does not exist", async () => {
    const intruder = await agentFor(INTRUDER, threadId, [...agent.messages, userMessage('what did I ask?')]);
    const error = await intruder.runAgent().catch((err: unknown) => err);
    expect(error).toMatchObject({ status: 404, payload: { error: { code: 'CONVERSATION_NOT_FOUND' } } });
    const unknown = await agentFor(INTRUDER, `agui-${randomUUID()}`, [...agent.messages, userMessage('hi')]);
    expect(await unknown.runAgent().catch((err: unknown) => err)).toMatchObject({
      status: 404,
      payload: { error: { code: 'CONVERSATION_NOT_FOUND' } },
    });
    // The owner's run is not the intruder's to read either.
    const platformRunId = (events[0]!.metadata as { platformRunId?: string } | undefined)?.platformRunId;
    expect((await api(platform, 'GET', `/v1/runs/${platformRunId}`, INTRUDER)).status).toBe(404);
  });
});

describe('malformed input', () => {
  it('refuses client-side tools with CLIENT_TOOLS_UNSUPPORTED (400), before any event', async () => {
    const agent = await agentFor(TENANT, `agui-${randomUUID()}`, [userMessage('hi')]);
    const events: BaseEvent[] = [];
    const error = await agent
      .runAgent(
        { tools: [{ name: 'confirm', description: 'Ask the user to confirm', parameters: { type: 'object' } }] },
        { onEvent: ({ event }) => void events.push(event) },
      )
      .catch((err: unknown) => err);
    expect(error).toMatchObject({ status: 400, payload: { error: { code: 'CLIENT_TOOLS_UNSUPPORTED' } } });
    expect(events).toEqual([]);
  });

  it('refuses a thread id that cannot be a conversation id (INVALID_CONVERSATION_ID)', async () => {
    const agent = await agentFor(TENANT, 'not a thread id!', [userMessage('hi')]);
    expect(await agent.runAgent().catch((err: unknown) => err)).toMatchObject({
      status: 400,
      payload: { error: { code: 'INVALID_CONVERSATION_ID' } },
    });
  });

  it("refuses input whose last message is not the user's (NO_USER_MESSAGE)", async () => {
    const agent = await agentFor(TENANT, `agui-${randomUUID()}`, [
      userMessage('hi'),
      { id: randomUUID(), role: 'assistant', content: 'hello' },
    ]);
    expect(await agent.runAgent().catch((err: unknown) => err)).toMatchObject({
      status: 400,
      payload: { error: { code: 'NO_USER_MESSAGE' } },
    });
  });

  it('refuses an agent that does not exist (404), before any event', async () => {
    const agent = new HttpAgent({
      url: `${platform.apiUrl}/v1/agents/no-such-agent/ag-ui`,
      headers: { authorization: `Bearer ${await tokenFor(TENANT)}` },
      initialMessages: [userMessage('hi')],
    });
    expect(await agent.runAgent().catch((err: unknown) => err)).toMatchObject({
      status: 404,
      payload: { error: { code: 'PROFILE_NOT_FOUND' } },
    });
  });
});
