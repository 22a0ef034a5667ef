// Structured answers through the real services (issue 36 item 5): a run with an output schema
// (the message's, or its profile's) answers with `output`, a JSON value valid against it; an
// invalid answer is asked for again once with the errors, then the run stops with
// `invalid_output`; models without structured output get the schema in their instructions; the
// schema survives a restart of the orchestrator mid-turn; the facade's `response_format` too.
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  api,
  bootPlatform,
  FAST_RECOVERY,
  simRequests,
  tokenFor,
  waitFor,
  writeProfilesFile,
  type SuitePlatform,
  type TurnJson,
} from './support.js';

const TENANT = 'structured-tenant';
const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

type StructuredTurn = TurnJson & { output?: unknown };
interface RunJson {
  status: string;
  stopReason: string;
  result: { output?: unknown; error?: { kind: string; issues?: Array<{ path: string; message: string }> } };
  transcript: Array<{ answerCheck?: { verdict: string } }>;
}
interface SimBody {
  messages: Array<{ role: string; content: unknown }>;
  response_format?: { type: string; json_schema?: { name: string; schema: unknown; strict?: boolean } };
}

let platform: SuitePlatform;
let profiles: Awaited<ReturnType<typeof writeProfilesFile>>;

beforeAll(async () => {
  profiles = await writeProfilesFile('structured', {
    defaultProfile: 'assistant',
    profiles: [
      { name: 'assistant', systemPrompt: 'You are a helpful assistant.', tools: [] },
      { name: 'weather', systemPrompt: 'You report the weather.', tools: [], outputSchema: WEATHER },
      {
        name: 'weather-text',
        systemPrompt: 'You report the weather.',
        tools: [],
        structuredOutput: false,
        outputSchema: WEATHER,
      },
    ],
  });
  platform = await bootPlatform('structured', {
    env: { orchestrator: { AGENT_PROFILES_FILE: profiles.file, ...FAST_RECOVERY } },
  });
});
afterAll(async () => {
  await platform?.stop();
  await profiles?.remove();
});

let conversations = 0;
async function send(body: Record<string, unknown>): Promise<{ status: number; body: StructuredTurn }> {
  conversations += 1;
  return api<StructuredTurn>(platform, 'POST', `/v1/conversations/structured-${conversations}/messages`, TENANT, body);
}

async function runOf(runId: string): Promise<RunJson> {
  const run = await api<RunJson>(platform, 'GET', `/v1/runs/${runId}`, TENANT);
  expect(run.status).toBe(200);
  return run.body;
}

/** What the model was sent for a scenario, oldest first. */
async function sentFor(scenario: string): Promise<SimBody[]> {
  return (await simRequests(platform)).filter((r) => r.scenario === scenario).map((r) => r.body as unknown as SimBody);
}

describe('a run with an output schema', () => {
  it("answers with output, asking the model with response_format (the message's schema)", async () => {
    const turn = await send({ content: '[scenario:structured-valid] Berlin?', outputSchema: WEATHER });
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({
      status: 'completed',
      stopReason: 'final_answer',
      output: { city: 'Berlin', celsius: 21 },
    });
    const [sent] = await sentFor('structured-valid');
    expect(sent?.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema: WEATHER, strict: true },
    });
    expect((await runOf(turn.body.runId)).result.output).toEqual({ city: 'Berlin', celsius: 21 });
  });

  it("retries an invalid answer once with the validation errors, then answers (the profile's schema)", async () => {
    const turn = await send({ content: '[scenario:structured-fix] Berlin?', profile: 'weather' });
    expect(turn.body).toMatchObject({
      status: 'completed',
      stopReason: 'final_answer',
      output: { city: 'Berlin', celsius: 21 },
    });
    const sent = await sentFor('structured-fix');
    expect(sent).toHaveLength(2);
    // The second call saw the refused answer and, after it, the errors as a system message.
    const feedback = sent[1]!.messages.at(-1)!;
    expect(feedback.role).toBe('system');
    expect(String(feedback.content)).toContain("must have required property 'celsius'");
    const run = await runOf(turn.body.runId);
    expect(run.transcript.map((t) => t.answerCheck?.verdict)).toEqual(['retry', undefined]);
    // The conversation's history keeps the exchange as it happened.
    const history = await api<{ messages: Array<{ message: { role: string } }> }>(
      platform,
      'GET',
      `/v1/conversations/structured-${conversations}/messages`,
      TENANT,
    );
    expect(history.body.messages.map((m) => m.message.role)).toEqual(['user', 'assistant', 'system', 'assistant']);
  });

  it('stops with invalid_output and the errors when the answer is invalid twice', async () => {
    const turn = await send({ content: '[scenario:structured-invalid-twice] Berlin?', profile: 'weather' });
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ status: 'failed', stopReason: 'invalid_output' });
    expect(turn.body).not.toHaveProperty('output');
    expect(await sentFor('structured-invalid-twice')).toHaveLength(2);
    const run = await runOf(turn.body.runId);
    expect(run).toMatchObject({ status: 'failed', stopReason: 'invalid_output' });
    expect(run.result.error).toEqual(
      expect.objectContaining({
        kind: 'invalid_output',
        issues: [{ path: '/celsius', message: '/celsius must be number' }],
      }),
    );
    const listed = await api<{ runs: Array<{ runId: string }> }>(
      platform,
      'GET',
      '/v1/runs?stopReason=invalid_output',
      TENANT,
    );
    expect(listed.body.runs.map((r) => r.runId)).toContain(turn.body.runId);
  });

  it('puts the schema in the instructions for models without structured output, and reads the answer as JSON', async () => {
    const turn = await send({ content: '[scenario:structured-fix] Berlin?', profile: 'weather-text' });
    expect(turn.body).toMatchObject({ status: 'completed', output: { city: 'Berlin', celsius: 21 } });
    const sent = (await sentFor('structured-fix')).slice(-2);
    for (const body of sent) expect(body.response_format).toBeUndefined();
    const system = sent[0]!.messages[0]!;
    expect(system.role).toBe('system');
    expect(String(system.content)).toContain('valid against this JSON Schema');
    expect(String(system.content)).toContain('"celsius"');
  });

  it('asks again for JSON in text when the provider refuses response_format at run time', async () => {
    const turn = await send({ content: '[scenario:structured-refused] Berlin?', outputSchema: WEATHER });
    expect(turn.body).toMatchObject({ status: 'completed', output: { city: 'Berlin', celsius: 21 } });
    const [refused, asked] = await sentFor('structured-refused');
    expect(refused?.response_format).toMatchObject({ type: 'json_schema' });
    expect(asked?.response_format).toBeUndefined();
    expect(String(asked?.messages[0]?.content)).toContain('valid against this JSON Schema');
  });

  it('refuses a schema that does not compile with 400 INVALID_OUTPUT_SCHEMA naming the field, before any run', async () => {
    // Memory's own model requests (ingesting earlier turns) may arrive meanwhile: count this scenario's.
    const before = (await sentFor('structured-valid')).length;
    for (const outputSchema of [{ type: 'strnig' }, { $ref: 'https://example.com/weather.json' }]) {
      const turn = await send({ content: '[scenario:structured-valid] Berlin?', outputSchema });
      expect(turn.status).toBe(400);
      expect(turn.body).toMatchObject({ error: { code: 'INVALID_OUTPUT_SCHEMA', details: { field: 'outputSchema' } } });
    }
    expect((await sentFor('structured-valid')).length).toBe(before);
  });

  it("keeps the message's schema across a restart of the orchestrator mid-turn", async () => {
    const pending = send({ content: '[scenario:structured-fix-slow] Berlin?', outputSchema: WEATHER });
    // The refused first answer is in; the second (valid, slow) is being asked for: restart now.
    await waitFor('the second model call', async () =>
      (await sentFor('structured-fix-slow')).length >= 2 ? true : undefined,
    );
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    const turn = await pending;
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ status: 'completed', output: { city: 'Berlin', celsius: 21 } });
    // The resumed attempt asked again with the run's schema (the profile has none).
    const sent = await sentFor('structured-fix-slow');
    expect(sent.length).toBeGreaterThan(2);
    for (const body of sent) expect(body.response_format?.json_schema?.schema).toEqual(WEATHER);
  });
});

describe("the facade's response_format", () => {
  let client: OpenAI;
  beforeAll(async () => {
    client = new OpenAI({ baseURL: `${platform.apiUrl}/v1`, apiKey: await tokenFor(TENANT), maxRetries: 0 });
  });

  it('json_schema: content is the checked JSON, which the openai parse helper reads', async () => {
    const completion = await client.chat.completions.parse({
      model: 'assistant',
      messages: [{ role: 'user', content: '[scenario:structured-fix] Berlin?' }],
      response_format: zodResponseFormat(z.object({ city: z.string(), celsius: z.number() }), 'weather'),
    });
    const message = completion.choices[0]!.message;
    expect(message.parsed).toEqual({ city: 'Berlin', celsius: 21 });
    expect(message.content).toBe('{"city":"Berlin","celsius":21}');
  });

  it('streamed, the JSON answer arrives whole at the end', async () => {
    const stream = await client.chat.completions.create({
      model: 'assistant',
      messages: [{ role: 'user', content: '[scenario:structured-fix] Berlin?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER, strict: true } },
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const deltas = chunks.map((c) => c.choices[0]?.delta.content).filter((c): c is string => !!c);
    expect(deltas).toEqual(['{"city":"Berlin","celsius":21}']);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('text: the answer as before, no output schema', async () => {
    const completion = await client.chat.completions.create({
      model: 'assistant',
      messages: [{ role: 'user', content: '[scenario:plain] hi' }],
      response_format: { type: 'text' },
    });
    expect(completion.choices[0]!.message.content).toContain('plain answer');
    const [sent] = (await sentFor('plain')).slice(-1);
    expect(sent?.response_format).toBeUndefined();
  });
});
