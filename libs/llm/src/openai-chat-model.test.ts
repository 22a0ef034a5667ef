import { startServiceProcess, type ServiceProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseFormatRejectedError } from '@platform/agent-loop';
import { OpenAIChatModel } from './openai-chat-model.js';

let sim: ServiceProcess;
let baseURL: string;

beforeAll(async () => {
  sim = await startServiceProcess({
    app: 'llm-sim',
    mode: 'source',
    telemetry: false,
    env: { LLM_SIM_PORT: '0', LLM_SIM_API_KEY: 'k', LOG_LEVEL: 'warn' },
  });
  baseURL = `http://127.0.0.1:${String(sim.ready['port'])}/v1`;
});
afterAll(async () => sim?.stop());

describe('OpenAIChatModel against llm-sim over HTTP', () => {
  it('returns tool calls with their raw arguments and the usage', async () => {
    const model = new OpenAIChatModel({ baseURL, apiKey: 'k', model: 'sim-1', timeoutMs: 5_000 });
    const response = await model.complete({
      messages: [{ role: 'user', content: '[scenario:calculator] 12 * (3 + 4)?' }],
      tools: [
        {
          name: 'calculator',
          description: 'math',
          parameters: { type: 'object', properties: { expression: { type: 'string' } } },
        },
      ],
      toolChoice: 'auto',
    });
    expect(response.finishReason).toBe('tool_calls');
    expect(response.message).toMatchObject({
      role: 'assistant',
      provider: 'openai',
      model: 'sim-1',
      toolCalls: [{ name: 'calculator' }],
    });
    expect(JSON.parse(response.message.toolCalls![0]!.arguments)).toEqual({ expression: '12 * (3 + 4)' });
    expect(response.usage.inputTokens).toBeGreaterThan(0);
  });

  it('sends no tools when tool choice is none', async () => {
    const model = new OpenAIChatModel({ baseURL, apiKey: 'k', model: 'sim-1', timeoutMs: 5_000 });
    const response = await model.complete({
      messages: [{ role: 'user', content: '[scenario:calculator] 12 * (3 + 4)?' }],
      tools: [{ name: 'calculator', description: 'math', parameters: { type: 'object' } }],
      toolChoice: 'none',
    });
    expect(response.finishReason).toBe('stop');
    expect(response.message.toolCalls).toBeUndefined();
  });

  it('surfaces a wrong API key as an authentication error', async () => {
    const model = new OpenAIChatModel({ baseURL, apiKey: 'wrong', model: 'sim-1', timeoutMs: 5_000 });
    await expect(
      model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], toolChoice: 'auto' }),
    ).rejects.toMatchObject({ kind: 'auth', status: 401 });
  });

  const planFormat = {
    type: 'json_schema' as const,
    name: 'plan',
    schema: {
      type: 'object',
      properties: { subtasks: { type: 'array', items: {} } },
      required: ['subtasks'],
      additionalProperties: false,
    },
    strict: false,
  };

  it("asks for structured output with the request's response format", async () => {
    const model = new OpenAIChatModel({ baseURL, apiKey: 'k', model: 'sim-1', timeoutMs: 5_000 });
    const response = await model.complete({
      messages: [{ role: 'user', content: '[scenario:plan-three] a week' }],
      tools: [],
      toolChoice: 'none',
      responseFormat: planFormat,
    });
    expect(JSON.parse(response.message.content as string)).toMatchObject({
      subtasks: [{ id: 'facts' }, { id: 'booking' }, { id: 'summary' }],
    });
    // A schema strict mode cannot take is refused by the provider: typed, so the caller can ask in text.
    const strictRefused = model.complete({
      messages: [{ role: 'user', content: '[scenario:plan-three] a week' }],
      tools: [],
      toolChoice: 'none',
      responseFormat: { ...planFormat, strict: true, schema: { type: 'object', properties: { a: {} } } },
    });
    await expect(strictRefused).rejects.toBeInstanceOf(ResponseFormatRejectedError);
  });

  it('sends the response format on the wire with the tools, streamed or not (a run with an output schema)', async () => {
    const model = new OpenAIChatModel({ baseURL, apiKey: 'k', model: 'sim-1', timeoutMs: 5_000 });
    const weather = {
      type: 'json_schema' as const,
      name: 'output',
      schema: {
        type: 'object',
        properties: { city: { type: 'string' }, celsius: { type: 'number' } },
        required: ['city', 'celsius'],
        additionalProperties: false,
      },
      strict: true,
    };
    const simUrl = baseURL.replace(/\/v1$/, '');
    for (const stream of [false, true]) {
      const response = await model.complete({
        messages: [{ role: 'user', content: '[scenario:structured-valid] weather in Berlin?' }],
        tools: [{ name: 'calculator', description: 'math', parameters: { type: 'object' } }],
        toolChoice: 'auto',
        responseFormat: weather,
        ...(stream ? { onTextDelta: () => undefined } : {}),
      });
      expect(JSON.parse(response.message.content as string)).toEqual({ city: 'Berlin', celsius: 21 });
    }
    const log = (await (await fetch(`${simUrl}/_sim/requests`)).json()) as {
      requests: Array<{
        scenario: string | null;
        body: { stream?: boolean; tools?: unknown[]; response_format?: unknown };
      }>;
    };
    const requests = log.requests.filter((r) => r.scenario === 'structured-valid');
    expect(requests.map((r) => r.body.stream ?? false)).toEqual([false, true]);
    for (const { body } of requests) {
      expect(body.tools).toHaveLength(1);
      expect(body.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'output', schema: weather.schema, strict: true },
      });
    }
  });

  it('throws ResponseFormatRejectedError (a bad_request) when the model has no structured output, streamed or not', async () => {
    const model = new OpenAIChatModel({ baseURL, apiKey: 'k', model: 'sim-1', timeoutMs: 5_000 });
    const ask = {
      messages: [{ role: 'user' as const, content: '[scenario:plan-no-structured-output] a week' }],
      tools: [],
      toolChoice: 'none' as const,
    };
    for (const stream of [false, true]) {
      const refused = model.complete({
        ...ask,
        responseFormat: planFormat,
        ...(stream ? { onTextDelta: () => undefined } : {}),
      });
      await expect(refused).rejects.toBeInstanceOf(ResponseFormatRejectedError);
      await expect(refused).rejects.toMatchObject({
        kind: 'bad_request',
        status: 400,
        message: expect.stringContaining("'response_format' of type 'json_schema' is not supported"),
      });
    }
    const inText = await model.complete(ask);
    expect(inText.message.content).toContain('```json');
  });
});
