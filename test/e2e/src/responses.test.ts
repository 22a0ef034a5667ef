// The OpenAI Responses API (`/v1/responses`), driven only by the official `openai` client:
// `model` names an agent, a response is a durable run, `previous_response_id` continues its
// conversation on the platform, tools run on the platform.
import type { ManagedProcess } from '@platform/testing';
import OpenAI, { BadRequestError, NotFoundError } from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, startRunnerProcess, tokenFor, waitForCatalog, type SuitePlatform } from './support.js';

const TENANT = 'responses-tenant';
const OTHER_TENANT = 'responses-other-tenant';
const QUESTION = '[scenario:calculator] What is 12 * (3 + 4)?';
const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

interface Run {
  status: string;
  conversationId: string;
  protocol: string | null;
  overrides: { instructions?: string } | null;
  result: { response: string; toolCalls: Array<{ name: string; status: string }> };
}
interface SimRequest {
  structuredReply: string | null;
  body: { messages: Array<{ role: string; content?: unknown }> };
}

let platform: SuitePlatform;
let client: OpenAI;
let otherClient: OpenAI;

beforeAll(async () => {
  platform = await bootPlatform('responses', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
  client = new OpenAI({ baseURL: `${platform.apiUrl}/v1`, apiKey: await tokenFor(TENANT), maxRetries: 0 });
  otherClient = new OpenAI({ baseURL: `${platform.apiUrl}/v1`, apiKey: await tokenFor(OTHER_TENANT), maxRetries: 0 });
});
afterAll(async () => {
  await platform?.stop();
});

async function runOf(runId: string): Promise<Run> {
  const run = await api<Run>(platform, 'GET', `/v1/runs/${runId}`, TENANT);
  expect(run.status).toBe(200);
  return run.body;
}

/** What the model was sent, as llm-sim logged it (long-term memory's own requests left out). */
async function modelRequests(): Promise<SimRequest[]> {
  const response = await fetch(`${platform.llmSimUrl}/_sim/requests`);
  return ((await response.json()) as { requests: SimRequest[] }).requests.filter((r) => r.structuredReply === null);
}

function textOf(content: unknown): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('a response', () => {
  it("is the final answer of a tool-using run, recorded with protocol 'responses'", async () => {
    const response = await client.responses.create({ model: 'default', input: QUESTION });
    expect(response.object).toBe('response');
    expect(response.id).toMatch(/^run_/);
    expect(response.status).toBe('completed');
    expect(response.model).toBe('default');
    expect(response.previous_response_id).toBeNull();
    expect(response.output).toHaveLength(1);
    const [item] = response.output;
    expect(item).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(response.output_text).toContain('84');
    expect(response.usage?.total_tokens).toBeGreaterThan(0);
    expect(response.usage?.total_tokens).toBe(
      (response.usage?.input_tokens ?? 0) + (response.usage?.output_tokens ?? 0),
    );

    // The tools ran on the platform: the run behind the response called the calculator.
    const run = await runOf(response.id);
    expect(run.protocol).toBe('responses');
    expect(run.status).toBe('completed');
    expect(run.result.response).toBe(response.output_text);
    expect(run.result.toolCalls).toEqual([expect.objectContaining({ name: 'calculator', status: 'success' })]);
  });

  it('takes message items of input_text parts', async () => {
    const response = await client.responses.create({
      model: 'default',
      input: [
        { role: 'developer', content: 'Be brief.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: '[scenario:plain] parts work' }] },
      ],
    });
    expect(response.status).toBe('completed');
    expect(response.output_text).toContain('parts work');
  });

  it("appends `instructions` to the agent's for this run", async () => {
    const response = await client.responses.create({
      model: 'default',
      instructions: 'Always sign off as Captain Responses.',
      input: '[scenario:plain] ahoy',
    });
    expect(response.instructions).toBe('Always sign off as Captain Responses.');
    expect((await runOf(response.id)).overrides).toEqual({ instructions: 'Always sign off as Captain Responses.' });
    const sent = (await modelRequests()).filter((r) => r.body.messages.some((m) => textOf(m.content).includes('ahoy')));
    expect(sent.at(-1)?.body.messages.some((m) => textOf(m.content).includes('Captain Responses'))).toBe(true);
  });

  it('answers structured JSON for text.format json_schema', async () => {
    const response = await client.responses.create({
      model: 'default',
      input: '[scenario:structured-valid] Berlin?',
      text: { format: { type: 'json_schema', name: 'weather', schema: WEATHER, strict: true } },
    });
    expect(response.status).toBe('completed');
    expect(JSON.parse(response.output_text)).toEqual({ city: 'Berlin', celsius: 21 });
    expect(response.text?.format).toMatchObject({ type: 'json_schema', name: 'weather' });
  });
});

describe('a streamed response', () => {
  it('streams the Responses event sequence, whose deltas add up to the final answer', async () => {
    const stream = await client.responses.create({ model: 'default', input: QUESTION, stream: true });
    const events = await collect(stream);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.type);
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(0);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...deltas.map(() => 'response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const text = deltas.join('');
    expect(text).toContain('84');
    const done = events.find((e) => e.type === 'response.output_text.done');
    expect(done?.type === 'response.output_text.done' && done.text).toBe(text);
    const completed = events.at(-1);
    if (completed?.type !== 'response.completed') throw new Error('the stream did not end with response.completed');
    expect(completed.response.status).toBe('completed');
    expect(completed.response.output[0]).toMatchObject({ type: 'message', content: [{ type: 'output_text', text }] });
    const created = events[0];
    expect(created?.type === 'response.created' && created.response.id).toBe(completed.response.id);

    const run = await runOf(completed.response.id);
    expect(run.protocol).toBe('responses');
    expect(run.result.response).toBe(text);
  });

  it('streams a structured answer whole, as JSON', async () => {
    const stream = await client.responses.create({
      model: 'default',
      input: '[scenario:structured-valid] Berlin?',
      text: { format: { type: 'json_schema', name: 'weather', schema: WEATHER } },
      stream: true,
    });
    const deltas = (await collect(stream)).flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas).toHaveLength(1);
    expect(JSON.parse(deltas[0] ?? '')).toEqual({ city: 'Berlin', celsius: 21 });
  });
});

describe('previous_response_id', () => {
  it("continues that response's conversation: the model sees the earlier turn", async () => {
    const first = await client.responses.create({ model: 'default', input: '[scenario:plain] my name is Ada' });
    const second = await client.responses.create({
      model: 'default',
      input: '[scenario:plain] what is my name?',
      previous_response_id: first.id,
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.id).not.toBe(first.id);
    expect((await runOf(second.id)).conversationId).toBe((await runOf(first.id)).conversationId);
    const lastModelCall = (await modelRequests())
      .filter((r) => r.body.messages.some((m) => textOf(m.content).includes('what is my name?')))
      .at(-1);
    expect(
      lastModelCall?.body.messages.some((m) => m.role === 'user' && textOf(m.content).includes('my name is Ada')),
    ).toBe(true);
    expect(lastModelCall?.body.messages.some((m) => m.role === 'assistant')).toBe(true);
  });

  it('continues a streamed turn too', async () => {
    const first = await client.responses.create({ model: 'default', input: '[scenario:plain] I live in Lisbon' });
    const stream = await client.responses.create({
      model: 'default',
      input: '[scenario:plain] where do I live?',
      previous_response_id: first.id,
      stream: true,
    });
    const completed = (await collect(stream)).at(-1);
    if (completed?.type !== 'response.completed') throw new Error('the stream did not end with response.completed');
    expect(completed.response.previous_response_id).toBe(first.id);
    expect((await runOf(completed.response.id)).conversationId).toBe((await runOf(first.id)).conversationId);
  });
});

describe('retrieving and cancelling', () => {
  it('retrieves a finished response', async () => {
    const created = await client.responses.create({ model: 'default', input: '[scenario:plain] keep this' });
    const retrieved = await client.responses.retrieve(created.id);
    expect(retrieved).toMatchObject({ id: created.id, object: 'response', status: 'completed', model: 'default' });
    expect(retrieved.output_text).toBe(created.output_text);
    expect(retrieved.usage?.total_tokens).toBe(created.usage?.total_tokens);
  });

  it("retrieves a response with its request's previous_response_id and text.format", async () => {
    const first = await client.responses.create({ model: 'default', input: '[scenario:plain] about Berlin' });
    const format = { type: 'json_schema' as const, name: 'weather', schema: WEATHER, strict: true };
    const created = await client.responses.create({
      model: 'default',
      input: '[scenario:structured-valid] Berlin?',
      previous_response_id: first.id,
      text: { format },
    });
    const retrieved = await client.responses.retrieve(created.id);
    expect(retrieved.previous_response_id).toBe(first.id);
    expect(retrieved.text?.format).toEqual(format);
    expect(JSON.parse(retrieved.output_text)).toEqual({ city: 'Berlin', celsius: 21 });
    // A response that asked neither reports none, and the default text format.
    const plain = await client.responses.retrieve(first.id);
    expect(plain.previous_response_id).toBeNull();
    expect(plain.text?.format).toEqual({ type: 'text' });
  });

  it('cancels a response in flight: its stream ends cancelled, and so does its run', async () => {
    const stream = await client.responses.create({
      model: 'default',
      input: '[scenario:slow] take your time',
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    let cancelled: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'response.created') cancelled = await client.responses.cancel(event.response.id);
    }
    expect(cancelled?.status).toBe('cancelled');
    const last = events.at(-1);
    expect(last?.type).toBe('response.incomplete');
    expect(last?.type === 'response.incomplete' && last.response.status).toBe('cancelled');
    expect(events.some((e) => e.type === 'response.failed' || e.type === 'response.completed')).toBe(false);
    const id = cancelled?.id ?? '';
    expect((await client.responses.retrieve(id)).status).toBe('cancelled');
    expect((await runOf(id)).status).toBe('cancelled');
  });

  it('refuses to cancel a finished response', async () => {
    const created = await client.responses.create({ model: 'default', input: '[scenario:plain] done already' });
    const error = await client.responses.cancel(created.id).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 409, code: 'RUN_FINISHED' });
  });
});

describe('a response whose run waits for an approval', () => {
  let runner: ManagedProcess | undefined;
  beforeAll(async () => {
    // A tool whose runner asks for approval before it runs (approval-gates.test.ts).
    runner = await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts');
    await waitForCatalog(platform.apiUrl, ['archive_orders']);
  });
  afterAll(async () => {
    await runner?.stop();
  });

  it('is incomplete, with what it waits for as its message, when created and when retrieved', async () => {
    const response = await client.responses.create({
      model: 'default',
      input: '[scenario:gated-archive] Archive the EMEA orders older than 90 days. (responses)',
    });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({});
    expect(response.error).toBeNull();
    expect(response.output).toEqual([expect.objectContaining({ type: 'message', status: 'incomplete' })]);
    expect(response.output_text).not.toBe('');
    expect((await runOf(response.id)).status).toBe('waiting');
    const retrieved = await client.responses.retrieve(response.id);
    expect(retrieved.status).toBe('incomplete');
    expect(retrieved.output_text).toBe(response.output_text);
  });

  it('streams to response.incomplete', async () => {
    const stream = await client.responses.create({
      model: 'default',
      input: '[scenario:gated-archive] Archive the EMEA orders older than 90 days. (responses, streamed)',
      stream: true,
    });
    const last = (await collect(stream)).at(-1);
    expect(last?.type).toBe('response.incomplete');
    expect(last?.type === 'response.incomplete' && last.response.status).toBe('incomplete');
  });
});

describe("another tenant's token", () => {
  it("finds none of this tenant's responses: retrieve, cancel and previous_response_id are NotFoundError", async () => {
    const created = await client.responses.create({ model: 'default', input: '[scenario:plain] private' });
    // One at a time: a request started before the previous one is awaited would reject unhandled.
    for (const attempt of [
      () => otherClient.responses.retrieve(created.id),
      () => otherClient.responses.cancel(created.id),
      () => otherClient.responses.create({ model: 'default', input: 'hi', previous_response_id: created.id }),
    ]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ status: 404, code: 'RUN_NOT_FOUND' });
    }
  });
});

describe('what the platform does not take', () => {
  it('refuses function tools with a typed 400: the agent’s own tools run on the platform', async () => {
    const error = await client.responses
      .create({
        model: 'default',
        input: 'hi',
        tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' }, strict: true }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'CLIENT_TOOLS_NOT_SUPPORTED' });
  });

  it('refuses input items other than messages, and assistant messages, with a typed 400', async () => {
    for (const input of [
      [{ type: 'function_call_output' as const, call_id: 'call_1', output: '42' }],
      [{ role: 'assistant' as const, content: 'earlier answer' }],
    ]) {
      const error = await client.responses.create({ model: 'default', input }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ status: 400, code: 'UNSUPPORTED_INPUT_ITEM' });
    }
  });

  it('answers an unknown model with NotFoundError', async () => {
    const error = await client.responses.create({ model: 'no-such-agent', input: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
  });
});
