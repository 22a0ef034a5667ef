// Structured answers at the HTTP edge: the facade's `response_format` (through the official
// `openai` client) and the messages route's `outputSchema` become the run's output schema, and the
// orchestrator's structured answer comes back as the completion's content and the turn's `output`.
// The orchestrator port is this test's own: it answers as the orchestrator does (the real one,
// which compiles and checks schemas, runs in the end-to-end suite).
import { createLogger, errors, type PromiseClient } from '@platform/service-kit';
import type { orchestratorV1 } from '@platform/proto';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import OpenAI, { BadRequestError } from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../app.js';
import { TokenVerifier } from '../auth.js';
import { noAgentPool, noAgents, noConversations, noEvents, noTrigger } from '../test-support/unavailable-ports.js';

const SECRET = 'structured-secret-structured-secret-1234';
const seen: orchestratorV1.HandleMessageRequest[] = [];
const ANSWER = { city: 'Berlin', celsius: 21 };

const orchestrator = {
  handleMessage: async (request: orchestratorV1.HandleMessageRequest) => {
    seen.push(request);
    if (request.outputSchemaJson?.includes('"strnig"'))
      throw errors.invalidArgument(
        'INVALID_OUTPUT_SCHEMA',
        'outputSchema (output_schema_json): the output schema does not compile',
        {
          details: { field: 'outputSchema' },
        },
      );
    const structured = !!request.outputSchemaJson;
    return {
      runId: 'run_1',
      status: 'completed',
      stopReason: 'final_answer',
      // The model's text (here in a fence); the structured answer is output_json.
      response: structured ? '```json\n{"city": "Berlin", "celsius": 21}\n```' : `echo: ${request.content}`,
      turns: 1,
      toolCalls: [],
      durationMs: 5,
      usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
      pendingJson: '[]',
      ...(structured ? { outputJson: JSON.stringify(ANSWER) } : {}),
    };
  },
} as unknown as PromiseClient<orchestratorV1.OrchestratorServiceClient>;

let app: FastifyInstance;
let client: OpenAI;
let auth: string;

beforeAll(async () => {
  app = buildApp({
    checkReplies: true,
    logger: createLogger({ service: 'api-test', level: 'silent' }),
    verifier: new TokenVerifier(SECRET),
    maxBodyBytes: 100_000,
    orchestrator,
    agents: noAgents,
    conversations: noConversations,
    memory: {} as never,
    events: noEvents,
    agentPool: noAgentPool,
    trigger: noTrigger,
    limits: { maxMessageChars: 1_000, turnWaitMs: 5_000, sseHeartbeatMs: 1_000 },
    health: { dependencies: {}, probeTimeoutMs: 200, isAccepting: () => true },
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const token = await new SignJWT({ sub: 'acme' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(SECRET));
  auth = `Bearer ${token}`;
  client = new OpenAI({ baseURL: `${address}/v1`, apiKey: token, maxRetries: 0 });
});
afterAll(async () => app?.close());

const Weather = z.object({ city: z.string(), celsius: z.number() });
const weatherSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

describe('the facade honours response_format', () => {
  it("json_schema: the schema is the run's output schema and content is the answer as JSON (openai's parse helper reads it)", async () => {
    const format = zodResponseFormat(Weather, 'weather');
    const completion = await client.chat.completions.parse({
      model: 'default',
      messages: [{ role: 'user', content: 'Weather in Berlin?' }],
      response_format: format,
    });
    const message = completion.choices[0]!.message;
    expect(message.content).toBe(JSON.stringify(ANSWER));
    expect(message.parsed).toEqual(ANSWER);
    expect(JSON.parse(seen.at(-1)!.outputSchemaJson!)).toEqual(format.json_schema.schema);
  });

  it('json_object: any JSON object; text and no format: no output schema, the text as before', async () => {
    await client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'Weather in Berlin, as JSON?' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(seen.at(-1)!.outputSchemaJson!)).toEqual({ type: 'object' });
    for (const format of [{ response_format: { type: 'text' as const } }, {}]) {
      const completion = await client.chat.completions.create({
        model: 'default',
        messages: [{ role: 'user', content: 'hi' }],
        ...format,
      });
      expect(completion.choices[0]!.message.content).toBe('echo: hi');
      expect(seen.at(-1)!.outputSchemaJson).toBeUndefined();
    }
  });

  it('json_schema without a schema takes any JSON value', async () => {
    await client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'anything' }],
      response_format: { type: 'json_schema', json_schema: { name: 'anything' } },
    });
    expect(seen.at(-1)!.outputSchemaJson).toBe('{}');
  });

  it.each([
    ['an unknown type', { type: 'xml' }],
    ['a schema name with a space', { type: 'json_schema', json_schema: { name: 'my schema', schema: {} } }],
    ['no json_schema', { type: 'json_schema' }],
    ['a schema that is an array', { type: 'json_schema', json_schema: { name: 's', schema: [] } }],
  ])('refuses %s with 400 INVALID_BODY before any run', async (_label, format) => {
    const before = seen.length;
    const refused = client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'hi' }],
      response_format: format as never,
    });
    await expect(refused).rejects.toBeInstanceOf(BadRequestError);
    await expect(refused).rejects.toMatchObject({ status: 400, error: { code: 'INVALID_BODY' } });
    expect(seen.length).toBe(before);
  });

  it("passes the orchestrator's refusal of a schema that does not compile on as 400 INVALID_OUTPUT_SCHEMA", async () => {
    const refused = client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'hi' }],
      response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'strnig' } } },
    });
    await expect(refused).rejects.toMatchObject({
      status: 400,
      error: { code: 'INVALID_OUTPUT_SCHEMA', details: { field: 'outputSchema' } },
    });
  });
});

describe("a message's outputSchema", () => {
  const send = (body: unknown) =>
    app.inject({
      method: 'POST',
      url: '/v1/conversations/conv-1/messages',
      headers: { authorization: auth, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  it("is sent as the run's output schema, and the turn response carries the structured answer as output", async () => {
    const response = await send({ content: 'Weather in Berlin?', outputSchema: weatherSchema });
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(seen.at(-1)!.outputSchemaJson!)).toEqual(weatherSchema);
    expect(response.json()).toMatchObject({ stopReason: 'final_answer', output: ANSWER });
    const plain = await send({ content: 'hi' });
    expect(seen.at(-1)!.outputSchemaJson).toBeUndefined();
    expect(plain.json()).not.toHaveProperty('output');
  });

  it('refuses a schema that does not compile with 400 INVALID_OUTPUT_SCHEMA naming the field', async () => {
    const response = await send({ content: 'hi', outputSchema: { type: 'strnig' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: {
        code: 'INVALID_OUTPUT_SCHEMA',
        message: expect.stringContaining('outputSchema'),
        details: { field: 'outputSchema' },
      },
    });
  });

  it.each([
    ['an array', [{ type: 'string' }]],
    ['a string', 'object'],
    ['over 64 KiB', { description: 'x'.repeat(70_000) }],
  ])('refuses a schema that is %s with 400 INVALID_BODY', async (_label, outputSchema) => {
    const before = seen.length;
    const response = await send({ content: 'hi', outputSchema });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'INVALID_BODY' } });
    expect(seen.length).toBe(before);
  });
});
