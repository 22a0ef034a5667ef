import type { ChatMessage } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { runAgentLoop } from './agent-loop.js';
import type { AnswerVerdict, LoopHooks } from './hooks.js';
import type { LoopEvent } from './events.js';
import { compileLoopConfig } from './loop-config.js';
import type { IterationRecord } from './loop-result.js';
import type { JsonSchemaResponseFormat } from './model-port.js';
import { FakeClock, FakeTools, reply, ScriptedModel, type ScriptStep } from './testing/index.js';

const input = { runId: 'run-1', messages: [{ role: 'user', content: 'weather?' }] satisfies ChatMessage[] };
const format: JsonSchemaResponseFormat = {
  type: 'json_schema',
  name: 'output',
  schema: { type: 'object' },
  strict: false,
};

/** Accepts JSON objects (their value as the output), refuses the rest, allowing `retries` retries. */
function jsonObjects(
  retries: number,
  seen: Array<{ content: string; refused: number }> = [],
): LoopHooks['checkAnswer'] {
  return async ({ content, refused }): Promise<AnswerVerdict> => {
    seen.push({ content, refused });
    try {
      const value: unknown = JSON.parse(content);
      if (typeof value === 'object' && value !== null) return { accept: true, output: value };
    } catch {
      // refused below
    }
    return {
      accept: false,
      retry: refused < retries,
      feedback: `not a JSON object: ${content}`,
      issues: [{ path: '', message: 'must be a JSON object' }],
    };
  };
}

const verdicts = (transcript: readonly IterationRecord[]) => transcript.map((t) => t.answerCheck?.verdict);

async function run(script: ScriptStep[], hooks: LoopHooks, events: LoopEvent[] = []) {
  const clock = new FakeClock();
  const model = new ScriptedModel(script);
  const result = await clock.settle(
    runAgentLoop(input, {
      model,
      tools: new FakeTools({}, clock),
      clock,
      config: compileLoopConfig({}),
      hooks,
      responseFormat: format,
      events: (e) => events.push(e),
    }),
  );
  return { result, model };
}

describe('runAgentLoop: checking the final answer (hooks.checkAnswer)', () => {
  it('ends with the accepted value as output, and asks every model call for the response format', async () => {
    const { result, model } = await run([reply.text('{"city":"Berlin"}')], { checkAnswer: jsonObjects(1) });
    expect(result).toMatchObject({
      stopReason: 'final_answer',
      response: '{"city":"Berlin"}',
      output: { city: 'Berlin' },
    });
    expect(model.requests.map((r) => r.responseFormat)).toEqual([format]);
    expect(result.transcript[0]!.answerCheck).toBeUndefined();
  });

  it('sends the feedback as a system message and accepts the corrected answer', async () => {
    const seen: Array<{ content: string; refused: number }> = [];
    const { result, model } = await run([reply.text('sunny'), reply.text('{"city":"Berlin"}')], {
      checkAnswer: jsonObjects(1, seen),
    });
    expect(result).toMatchObject({ stopReason: 'final_answer', output: { city: 'Berlin' }, turns: 2 });
    expect(seen).toEqual([
      { content: 'sunny', refused: 0 },
      { content: '{"city":"Berlin"}', refused: 1 },
    ]);
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'system', 'assistant']);
    expect(result.messages[1]).toEqual({ role: 'system', content: 'not a JSON object: sunny' });
    // The second call saw the refused answer and the feedback after it.
    expect(model.requests[1]!.messages.slice(-2)).toMatchObject([
      { role: 'assistant', content: 'sunny' },
      { role: 'system', content: 'not a JSON object: sunny' },
    ]);
    expect(verdicts(result.transcript)).toEqual(['retry', undefined]);
  });

  it('stops with invalid_output, the last answer and the issues, when the hook allows no more retries', async () => {
    const { result } = await run([reply.text('sunny'), reply.text('still sunny'), reply.text('{"never":"asked"}')], {
      checkAnswer: jsonObjects(1),
    });
    expect(result).toMatchObject({
      stopReason: 'invalid_output',
      response: 'still sunny',
      turns: 2,
      error: {
        kind: 'invalid_output',
        message: 'not a JSON object: still sunny',
        issues: [{ path: '', message: 'must be a JSON object' }],
      },
    });
    expect(result.output).toBeUndefined();
    expect(verdicts(result.transcript)).toEqual(['retry', 'rejected']);
  });

  it('accepts the answer when the hook throws, and reports it as a hook_error', async () => {
    const events: LoopEvent[] = [];
    const { result } = await run(
      [reply.text('sunny')],
      { checkAnswer: () => Promise.reject(new Error('checker broke')) },
      events,
    );
    expect(result).toMatchObject({ stopReason: 'final_answer', response: 'sunny' });
    expect(result.output).toBeUndefined();
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'hook_error', hook: 'checkAnswer', message: 'checker broke' }),
    );
  });
});
