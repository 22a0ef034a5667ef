import type { ChatMessage } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { runAgentLoop } from './agent-loop.js';
import { compileLoopConfig } from './loop-config.js';
import { ResponseFormatRejectedError } from './model-errors.js';
import type { JsonSchemaResponseFormat, ModelRequest } from './model-port.js';
import { FakeClock, FakeTools, reply, ScriptedModel } from './testing/index.js';

const input = {
  runId: 'run-1',
  messages: [
    { role: 'system', content: 'You are the weather desk.' },
    { role: 'user', content: 'weather?' },
  ] satisfies ChatMessage[],
};
const format: JsonSchemaResponseFormat = {
  type: 'json_schema',
  name: 'output',
  schema: { type: 'object' },
  strict: false,
};
const INSTRUCTION = 'Answer with one JSON object.';

/** A provider that refuses every request asking for structured output, and answers the others. */
const refusesStructuredOutput = (request: ModelRequest) =>
  request.responseFormat
    ? new ResponseFormatRejectedError('response_format is not supported by this model')
    : reply.text('{"city": "Berlin"}');

async function run(textFallback: string | undefined) {
  const clock = new FakeClock();
  const model = new ScriptedModel([refusesStructuredOutput]);
  const result = await clock.settle(
    runAgentLoop(input, {
      model,
      tools: new FakeTools({}, clock),
      clock,
      config: compileLoopConfig({}),
      responseFormat: format,
      ...(textFallback ? { textFallback } : {}),
    }),
  );
  return { result, model };
}

describe('runAgentLoop: a provider that refuses structured output at run time', () => {
  it('asks again without responseFormat, the fallback instruction in the system prompt, for the rest of the run', async () => {
    const { result, model } = await run(INSTRUCTION);
    expect(result).toMatchObject({ stopReason: 'final_answer', response: '{"city": "Berlin"}' });
    expect(model.requests.map((r) => r.responseFormat !== undefined)).toEqual([true, false]);
    expect(model.requests[1]!.messages[0]).toEqual({
      role: 'system',
      content: `You are the weather desk.\n\n${INSTRUCTION}`,
    });
    // The history the run produced is the model's answer only: the instruction lives in the request view.
    expect(result.messages.map((m) => m.role)).toEqual(['assistant']);
  });

  it('fails the model call like any bad request when the caller gives no fallback', async () => {
    const { result, model } = await run(undefined);
    expect(result.stopReason).toBe('model_error');
    expect(model.requests.every((r) => r.responseFormat !== undefined)).toBe(true);
  });
});
