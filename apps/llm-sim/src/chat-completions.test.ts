import type OpenAI from 'openai';
import { BadRequestError, InternalServerError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calculatorTool, platformTools, startSim, type RunningSim } from './test-support/sim.js';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ToolCall = OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;

let sim: RunningSim;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSim({
    scenarios: [
      { name: 'strict-end', whenExhausted: 'error', steps: [{ content: 'only step' }] },
      {
        name: 'fixed-id',
        steps: [
          { toolCalls: [{ id: 'call_fixed', name: 'calculator', arguments: { expression: '{{userMessage}}' } }] },
        ],
      },
      { name: 'truncated', steps: [{ content: 'cut off', finishReason: 'length' }] },
    ],
  });
  client = sim.client();
});
afterAll(() => sim.close());

const parseArgs = (text: string): unknown => JSON.parse(text);
const functionCalls = (calls: unknown[] | undefined) => (calls ?? []) as ToolCall[];

/** Answers each tool call the way the platform's tools would. */
function toolResults(calls: ToolCall[]): Message[] {
  return calls.map((call) => {
    const args = JSON.parse(call.function.arguments) as Record<string, string>;
    const content =
      call.function.name === 'calculator'
        ? JSON.stringify({ expression: args.expression, result: 126 })
        : JSON.stringify({ timezone: args.timezone, iso: '2026-01-01T12:00:00+09:00', local: '12:00' });
    return { role: 'tool', tool_call_id: call.id, content };
  });
}

describe('POST /v1/chat/completions (non-streaming, openai client)', () => {
  it('runs the default demo scenario: parallel tool calls, then an answer from both results', async () => {
    const messages: Message[] = [{ role: 'user', content: 'What is (17 + 25) * 3, and what time is it in Tokyo?' }];
    const first = await client.chat.completions.create({ model: 'sim-1', messages, tools: platformTools });
    expect(first.object).toBe('chat.completion');
    expect(first.model).toBe('sim-1');
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message).toMatchObject({ role: 'assistant', content: null, refusal: null });
    const calls = functionCalls(choice.message.tool_calls);
    expect(calls.map((c) => [c.type, c.function.name, parseArgs(c.function.arguments)])).toEqual([
      ['function', 'calculator', { expression: '(17 + 25) * 3' }],
      ['function', 'current_time', { timezone: 'Asia/Tokyo' }],
    ]);
    for (const call of calls) expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    expect(first.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(first.usage!.completion_tokens).toBeGreaterThan(0);
    expect(first.usage!.total_tokens).toBe(first.usage!.prompt_tokens + first.usage!.completion_tokens);

    messages.push(choice.message, ...toolResults(calls));
    const second = await client.chat.completions.create({ model: 'sim-1', messages, tools: platformTools });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(second.choices[0]!.message.content).toBe('(17 + 25) * 3 = 126. The current time in Tokyo is 12:00.');
    expect(second.choices[0]!.message.tool_calls).toBeUndefined();
  });

  it('selects a scenario by marker and progresses step by step', async () => {
    const messages: Message[] = [{ role: 'user', content: '[scenario:calculator] What is 12 * (3 + 4)?' }];
    const first = await client.chat.completions.create({ model: 'sim-large', messages, tools: [calculatorTool] });
    const calls = functionCalls(first.choices[0]!.message.tool_calls);
    expect(calls.map((c) => parseArgs(c.function.arguments))).toEqual([{ expression: '12 * (3 + 4)' }]);
    messages.push(first.choices[0]!.message, {
      role: 'tool',
      tool_call_id: calls[0]!.id,
      content: '{"expression":"12 * (3 + 4)","result":84}',
    });
    const second = await client.chat.completions.create({ model: 'sim-large', messages, tools: [calculatorTool] });
    expect(second.choices[0]!.message.content).toBe('12 * (3 + 4) = 84.');
    // Past the last step the default policy replays it.
    messages.push(second.choices[0]!.message);
    const third = await client.chat.completions.create({ model: 'sim-large', messages, tools: [calculatorTool] });
    expect(third.choices[0]!.message.content).toBe('12 * (3 + 4) = 84.');

    const log = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as {
      requests: Array<{ scenario: string; stepIndex: number }>;
    };
    expect(log.requests.slice(-3).map((r) => [r.scenario, r.stepIndex])).toEqual([
      ['calculator', 0],
      ['calculator', 1],
      ['calculator', 2],
    ]);
  });

  it('answers text-only scenarios and fills {{userMessage}} without the marker', async () => {
    const reply = await client.chat.completions.create({
      model: 'sim-1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Good morning [scenario:plain]' },
      ],
    });
    expect(reply.choices[0]!.message.content).toBe(
      'Hello! This is a plain answer from the simulated model. You said: Good morning',
    );
    expect(reply.choices[0]!.finish_reason).toBe('stop');
  });

  it('never returns tool calls when tools are absent or tool_choice is none', async () => {
    const messages: Message[] = [{ role: 'user', content: '[scenario:loop-forever] keep going' }];
    const noTools = await client.chat.completions.create({ model: 'sim-1', messages });
    expect(noTools.choices[0]!.message.tool_calls).toBeUndefined();
    expect(noTools.choices[0]!.message.content).toBe(
      'I kept calling the calculator without getting anywhere. The last result was (unavailable).',
    );
    const none = await client.chat.completions.create({
      model: 'sim-1',
      messages,
      tools: [calculatorTool],
      tool_choice: 'none',
    });
    expect(none.choices[0]!.message.tool_calls).toBeUndefined();
    // Scenarios without onToolsDisabled fall back to a generic summary.
    const generic = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:unknown-tool] go' }],
    });
    expect(generic.choices[0]!.message.content).toMatch(/^I cannot use tools for this request.*You asked: go/);
  });

  it('keeps tool-call ids stable across identical requests and unique within a conversation', async () => {
    const messages: Message[] = [{ role: 'user', content: '[scenario:loop-forever] loop' }];
    const ids: string[] = [];
    for (let step = 0; step < 4; step++) {
      const reply = await client.chat.completions.create({ model: 'sim-1', messages, tools: [calculatorTool] });
      const again = await client.chat.completions.create({ model: 'sim-1', messages, tools: [calculatorTool] });
      const calls = functionCalls(reply.choices[0]!.message.tool_calls);
      expect(functionCalls(again.choices[0]!.message.tool_calls).map((c) => c.id)).toEqual(calls.map((c) => c.id));
      expect(JSON.parse(calls[0]!.function.arguments)).toEqual({ expression: '1 + 1' });
      ids.push(...calls.map((c) => c.id));
      messages.push(reply.choices[0]!.message, ...toolResults(calls));
    }
    expect(new Set(ids).size).toBe(4);
    const parallel = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:parallel-three] go' }],
      tools: platformTools,
    });
    const parallelIds = functionCalls(parallel.choices[0]!.message.tool_calls).map((c) => c.id);
    expect(parallelIds).toHaveLength(3);
    expect(new Set(parallelIds).size).toBe(3);
  });

  it('sends raw-string arguments verbatim and odd tool names as scripted', async () => {
    const malformed = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:malformed-tool-args] go' }],
      tools: [calculatorTool],
    });
    expect(functionCalls(malformed.choices[0]!.message.tool_calls)[0]!.function.arguments).toBe('{"expression": "1 +');
    const leaked = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:leaked-token-name] go' }],
      tools: [calculatorTool],
    });
    expect(functionCalls(leaked.choices[0]!.message.tool_calls)[0]!.function.name).toBe('calculator<|im_end|>');
  });

  it('uses fixed ids, templated arguments and finishReason overrides', async () => {
    const fixed = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:fixed-id] 2 + 2' }],
      tools: [calculatorTool],
    });
    const call = functionCalls(fixed.choices[0]!.message.tool_calls)[0]!;
    expect(call.id).toBe('call_fixed');
    expect(JSON.parse(call.function.arguments)).toEqual({ expression: '2 + 2' });
    const truncated = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:truncated]' }],
    });
    expect(truncated.choices[0]!.finish_reason).toBe('length');
  });

  it('returns 500 past the last step when whenExhausted is error', async () => {
    const messages: Message[] = [
      { role: 'user', content: '[scenario:strict-end] hi' },
      { role: 'assistant', content: 'only step' },
    ];
    const error = await client.chat.completions.create({ model: 'sim-1', messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).message).toMatch(/strict-end.*step index 1 is past the end/);
  });

  it('rejects an unknown scenario marker with the names that exist', async () => {
    const error = await client.chat.completions
      .create({ model: 'sim-1', messages: [{ role: 'user', content: '[scenario:does-not-exist] hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    const bad = error as BadRequestError;
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(
      /Unknown scenario "does-not-exist"\. Available scenarios: approval-cancel, approval-mixed, auth-failure, calculator,/,
    );
  });
});
