// The OpenAI-compatible facade (`POST /v1/chat/completions`), driven by the official `openai`
// client: `model` names an agent profile, tools run on the platform, the client gets the answer.
import OpenAI, { NotFoundError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, tokenFor, type SuitePlatform } from './support.js';

const TENANT = 'facade-tenant';
const QUESTION = '[scenario:calculator] What is 12 * (3 + 4)?';

interface Run {
  status: string;
  conversationId: string;
  protocol: string | null;
  result: { response: string; toolCalls: Array<{ name: string; status: string }> };
}
interface History {
  messages: Array<{ message: { role: string; content?: string | null } }>;
}
interface SimRequest {
  /** Set for long-term memory's own requests (extraction, Q&A), which quote the tenant's turns. */
  structuredReply: string | null;
  scenario: string | null;
  body: { messages: Array<{ role: string; content?: unknown }> };
}

let platform: SuitePlatform;
let client: OpenAI;

beforeAll(async () => {
  platform = await bootPlatform('facade', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
  client = new OpenAI({ baseURL: `${platform.apiUrl}/v1`, apiKey: await tokenFor(TENANT), maxRetries: 0 });
});
afterAll(async () => {
  await platform?.stop();
});

async function runOf(runId: string | null): Promise<Run> {
  expect(runId).toMatch(/^run_/);
  const run = await api<Run>(platform, 'GET', `/v1/runs/${runId}`, TENANT);
  expect(run.status).toBe(200);
  return run.body;
}

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** What the model was sent, as llm-sim logged it. */
async function modelRequests(): Promise<SimRequest[]> {
  const response = await fetch(`${platform.llmSimUrl}/_sim/requests`);
  // Memory's extraction requests quote the conversation too; only the turns' own model calls count.
  return ((await response.json()) as { requests: SimRequest[] }).requests.filter((r) => r.structuredReply === null);
}

function textOf(content: unknown): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

describe('a chat completion', () => {
  it('answers with the final assistant message of a tool-using turn', async () => {
    const { data: completion, response } = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: QUESTION }] })
      .withResponse();
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('default');
    expect(completion.choices).toHaveLength(1);
    const [choice] = completion.choices;
    expect(choice?.message.role).toBe('assistant');
    expect(choice?.message.content).toContain('84');
    expect(choice?.finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    );

    // The tools ran on the platform: the run behind the completion called the calculator.
    const run = await runOf(response.headers.get('x-run-id'));
    expect(run.status).toBe('completed');
    expect(run.result.response).toBe(choice?.message.content);
    expect(run.result.toolCalls).toEqual([expect.objectContaining({ name: 'calculator', status: 'success' })]);
    expect(run.conversationId).toBe(response.headers.get('x-conversation-id'));
  });

  it('records the protocol with the run, which the run list filters on', async () => {
    const { response } = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: 'hello' }] })
      .withResponse();
    const facadeRun = response.headers.get('x-run-id')!;
    expect((await runOf(facadeRun)).protocol).toBe('chat_completions');
    const sent = await api<{ runId: string }>(platform, 'POST', '/v1/conversations/protocol-rest/messages', TENANT, {
      content: 'hello',
    });
    expect(sent.status).toBe(200);
    expect((await runOf(sent.body.runId)).protocol).toBe('rest');

    type Listed = { runs: Array<{ runId: string; protocol: string | null }> };
    const listed = await api<Listed>(platform, 'GET', '/v1/runs?protocol=chat_completions&pageSize=200', TENANT);
    expect(listed.body.runs.map((r) => r.runId)).toContain(facadeRun);
    expect(listed.body.runs.every((r) => r.protocol === 'chat_completions')).toBe(true);
    expect(listed.body.runs.map((r) => r.runId)).not.toContain(sent.body.runId);
    const refused = await api(platform, 'GET', '/v1/runs?protocol=smtp', TENANT);
    expect(refused.status).toBe(400);
  });
});

describe('a streamed chat completion', () => {
  it('streams deltas that add up to the final answer and ends with finish_reason stop', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: QUESTION }], stream: true })
      .withResponse();
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const chunks = await collect(stream);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.id).toBe(chunks[0]?.id);
      expect(chunk.model).toBe('default');
    }
    const choices = chunks.flatMap((c) => c.choices);
    expect(choices[0]?.delta.role).toBe('assistant');
    const text = choices.map((c) => c.delta.content ?? '').join('');
    expect(text).toContain('84');
    expect(choices.filter((c) => c.finish_reason !== null)).toEqual([
      expect.objectContaining({ finish_reason: 'stop' }),
    ]);
    expect(choices.at(-1)?.finish_reason).toBe('stop');
    expect(chunks.some((c) => c.usage)).toBe(false);

    const run = await runOf(response.headers.get('x-run-id'));
    expect(run.result.response).toBe(text);
    expect(run.result.toolCalls).toEqual([expect.objectContaining({ name: 'calculator', status: 'success' })]);
    // The stream names the conversation it created, as the non-streamed answer does.
    expect(response.headers.get('x-conversation-id')).toBe(run.conversationId);
  });

  it("streams the answer once when the model's stream broke off and the call was retried", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({
        model: 'default',
        messages: [{ role: 'user', content: '[scenario:stream-cut-once] tell me' }],
        stream: true,
      })
      .withResponse();
    const text = (await collect(stream))
      .flatMap((c) => c.choices)
      .map((c) => c.delta.content ?? '')
      .join('');
    expect(text).toBe('The answer, streamed word by word, arrives whole on the second try.');
    expect((await runOf(response.headers.get('x-run-id'))).result.response).toBe(text);
  });

  it('ends with a usage chunk when the client asks for it', async () => {
    const stream = await client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: QUESTION }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = await collect(stream);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.total_tokens).toBeGreaterThan(0);
    expect(last?.usage?.total_tokens).toBe((last?.usage?.prompt_tokens ?? 0) + (last?.usage?.completion_tokens ?? 0));
    const choices = chunks.flatMap((c) => c.choices);
    expect(choices.map((c) => c.delta.content ?? '').join('')).toContain('84');
    expect(choices.at(-1)?.finish_reason).toBe('stop');
  });
});

describe('an unknown model', () => {
  it('is a NotFoundError (404) for a plain request', async () => {
    const error = await client.chat.completions
      .create({ model: 'no-such-agent', messages: [{ role: 'user', content: 'hi' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'PROFILE_NOT_FOUND' });
  });

  it('is a NotFoundError (404) for a streamed request, before any chunk', async () => {
    const error = await client.chat.completions
      .create({ model: 'no-such-agent', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'PROFILE_NOT_FOUND' });
  });
});

describe('x-conversation-id', () => {
  async function history(conversationId: string): Promise<History['messages']> {
    const page = await api<History>(platform, 'GET', `/v1/conversations/${conversationId}/messages`, TENANT);
    expect(page.status).toBe(200);
    return page.body.messages;
  }

  it('keeps the history on the platform across requests (default headers)', async () => {
    const conversationId = 'facade-kept-1';
    const attached = new OpenAI({
      baseURL: `${platform.apiUrl}/v1`,
      apiKey: await tokenFor(TENANT),
      maxRetries: 0,
      defaultHeaders: { 'x-conversation-id': conversationId },
    });
    const first = await attached.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: '[scenario:plain] my name is Ada' }] })
      .withResponse();
    expect(first.response.headers.get('x-conversation-id')).toBe(conversationId);
    expect(first.data.choices[0]?.message.content).toContain('my name is Ada');
    // The second request sends only its own message: the platform supplies the earlier turn.
    const second = await attached.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: '[scenario:plain] what is my name?' }],
    });
    expect(second.choices[0]?.message.content).toContain('what is my name?');

    const messages = await history(conversationId);
    expect(messages.map((m) => [m.message.role, m.message.content])).toEqual([
      ['user', '[scenario:plain] my name is Ada'],
      ['assistant', first.data.choices[0]?.message.content],
      ['user', '[scenario:plain] what is my name?'],
      ['assistant', second.choices[0]?.message.content],
    ]);
    const lastModelCall = (await modelRequests())
      .filter((r) => r.body.messages.some((m) => textOf(m.content).includes('what is my name?')))
      .at(-1);
    expect(
      lastModelCall?.body.messages.some((m) => m.role === 'user' && textOf(m.content).includes('my name is Ada')),
    ).toBe(true);
  });

  it('works as a per-request header too, streamed or not', async () => {
    const conversationId = 'facade-kept-2';
    const options = { headers: { 'x-conversation-id': conversationId } };
    const first = await client.chat.completions.create(
      { model: 'default', messages: [{ role: 'user', content: '[scenario:plain] one' }] },
      options,
    );
    const stream = await client.chat.completions.create(
      { model: 'default', messages: [{ role: 'user', content: '[scenario:plain] two' }], stream: true },
      options,
    );
    const streamedText = (await collect(stream))
      .flatMap((c) => c.choices)
      .map((c) => c.delta.content ?? '')
      .join('');
    const messages = await history(conversationId);
    expect(messages.map((m) => [m.message.role, m.message.content])).toEqual([
      ['user', '[scenario:plain] one'],
      ['assistant', first.choices[0]?.message.content],
      ['user', '[scenario:plain] two'],
      ['assistant', streamedText],
    ]);
  });

  it('without it, each request is a conversation of its own', async () => {
    const a = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: '[scenario:plain] alone' }] })
      .withResponse();
    const b = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: '[scenario:plain] alone' }] })
      .withResponse();
    const idA = a.response.headers.get('x-conversation-id') ?? '';
    const idB = b.response.headers.get('x-conversation-id') ?? '';
    expect(idA).toMatch(/^chat-/);
    expect(idB).toMatch(/^chat-/);
    expect(idA).not.toBe(idB);
    expect(await history(idA)).toHaveLength(2);
  });
});
