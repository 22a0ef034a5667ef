import { BadRequestError } from 'openai';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from './test-support/sim.js';

let sim: RunningSim;
let client: OpenAI;

const planSchema = {
  type: 'object',
  properties: { steps: { type: 'array', items: { type: 'string' } } },
  required: ['steps'],
  additionalProperties: false,
};
const SCRIPTED = '{"steps":["a","b"]}';

beforeAll(async () => {
  sim = await startSim({
    scenarios: [
      { name: 'structured', steps: [{ content: SCRIPTED }] },
      {
        name: 'no-structured-output',
        steps: [{ fault: { kind: 'response_format_unsupported', times: 'always' }, content: SCRIPTED }],
      },
    ],
  });
  client = sim.client();
});
afterAll(() => sim.close());

type Format = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming['response_format'];
const ask = (scenario: string, responseFormat?: unknown) =>
  client.chat.completions.create({
    model: 'sim-1',
    messages: [{ role: 'user', content: `[scenario:${scenario}] plan it` }],
    ...(responseFormat ? { response_format: responseFormat as Format } : {}),
  });
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as BadRequestError,
  );
const format = (jsonSchema: Record<string, unknown>) => ({ type: 'json_schema', json_schema: jsonSchema });

describe('response_format', () => {
  it('answers a well-formed json_schema request (strict or not) with the scripted content', async () => {
    for (const strict of [true, false]) {
      const completion = await ask('structured', format({ name: 'plan', schema: planSchema, strict }));
      expect(completion.choices[0]!.message.content).toBe(SCRIPTED);
    }
  });

  it('refuses a malformed json_schema as OpenAI does, naming the field', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ type: 'xml' }, 'response_format.type', /Supported values/],
      [format({ schema: planSchema }), 'response_format.json_schema.name', /Missing required parameter/],
      [format({ name: 'a plan!', schema: planSchema }), 'response_format.json_schema.name', /does not match pattern/],
      [format({ name: 'plan', schema: 'object' }), 'response_format.json_schema.schema', /expected an object/],
      [
        format({ name: 'plan', schema: { type: 'array', items: {} }, strict: true }),
        'response_format',
        /must be a JSON Schema of 'type: "object"'/,
      ],
      [
        format({ name: 'plan', schema: { ...planSchema, required: [] }, strict: true }),
        'response_format',
        /Missing 'steps'/,
      ],
      [
        format({
          name: 'plan',
          schema: {
            ...planSchema,
            properties: { steps: { type: 'array', items: { type: 'object', properties: { x: {} }, required: ['x'] } } },
          },
          strict: true,
        }),
        'response_format',
        /'additionalProperties' is required/,
      ],
    ];
    for (const [bad, param, message] of cases) {
      const error = await rejection(ask('structured', bad));
      expect(error, JSON.stringify(bad)).toBeInstanceOf(BadRequestError);
      expect(error!.param).toBe(param);
      expect(error!.message).toMatch(message);
    }
  });

  it('a response_format_unsupported fault refuses only requests asking for structured output', async () => {
    const error = await rejection(
      ask('no-structured-output', format({ name: 'plan', schema: planSchema, strict: true })),
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error!.param).toBe('response_format');
    expect(error!.message).toMatch(/'response_format' of type 'json_schema' is not supported with this model/);
    const plain = await ask('no-structured-output');
    expect(plain.choices[0]!.message.content).toBe(SCRIPTED);
  });
});
