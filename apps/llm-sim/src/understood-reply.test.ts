// The default scenario answers what it is asked: through the sim's HTTP API with the openai client.
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calculatorTool, platformTools, startSim, type RunningSim } from './test-support/sim.js';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ToolCall = OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;

let sim: RunningSim;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSim({});
  client = sim.client();
});
afterAll(() => sim.close());

/** One turn as the platform runs it: ask, run each tool call with `run`, ask again. */
async function turn(
  question: string,
  run: (call: ToolCall) => string,
  tools = platformTools,
): Promise<{ calls: Array<[string, unknown]>; answer: string | null }> {
  const messages: Message[] = [{ role: 'user', content: question }];
  const first = (await client.chat.completions.create({ model: 'sim-1', messages, tools })).choices[0]!;
  const calls = (first.message.tool_calls ?? []) as ToolCall[];
  if (calls.length === 0) return { calls: [], answer: first.message.content };
  messages.push(
    first.message,
    ...calls.map((call): Message => ({ role: 'tool', tool_call_id: call.id, content: run(call) })),
  );
  const second = (await client.chat.completions.create({ model: 'sim-1', messages, tools })).choices[0]!;
  expect(second.message.tool_calls).toBeUndefined();
  return {
    calls: calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]),
    answer: second.message.content,
  };
}

describe('the default scenario (demo)', () => {
  it('answers "What is 2^10?" (the example npm run platform prints) through calculator', async () => {
    const result = await turn('What is 2^10?', () => JSON.stringify({ expression: '2^10', result: 1024 }));
    expect(result).toEqual({ calls: [['calculator', { expression: '2^10' }]], answer: '2^10 = 1024.' });
  });

  it('answers a time question through current_time, in the zone of the place asked about', async () => {
    const result = await turn('What time is it in London?', () =>
      JSON.stringify({
        timezone: 'Europe/London',
        iso: '2026-01-01T09:00:00Z',
        local: '2026-01-01 09:00:00 (Thursday)',
        utcOffset: '+00:00',
      }),
    );
    expect(result).toEqual({
      calls: [['current_time', { timezone: 'Europe/London' }]],
      answer: 'The current time in London is 2026-01-01 09:00:00 (Thursday).',
    });
  });

  it('still answers the demo conversation the platform runs at start', async () => {
    const result = await turn('What is (17 + 25) * 3, and what time is it in Tokyo right now?', (call) =>
      call.function.name === 'calculator'
        ? JSON.stringify({ expression: '(17 + 25) * 3', result: 126 })
        : JSON.stringify({ timezone: 'Asia/Tokyo', local: '21:05' }),
    );
    expect(result.calls.map(([name]) => name)).toEqual(['calculator', 'current_time']);
    expect(result.answer).toBe('(17 + 25) * 3 = 126. The current time in Tokyo is 21:05.');
  });

  it('says so when a tool fails instead of inventing a result', async () => {
    const result = await turn('What is 1/0 + 2?', () => 'calculator failed: the result is not a finite number');
    expect(result.answer).toBe('I could not work out 1/0 + 2: calculator failed: the result is not a finite number.');
  });

  it('answers honestly what it cannot work out, without calling a tool', async () => {
    const result = await turn('Who wrote Hamlet?', () => 'unused');
    expect(result.calls).toEqual([]);
    expect(result.answer).toMatch(
      /^I am llm-sim, the simulated model of this platform: .*cannot really answer "Who wrote Hamlet\?"/,
    );
    expect(result.answer).not.toMatch(/126|Tokyo/);
  });

  it('says which tool it would need when the request does not offer it', async () => {
    const result = await turn('What time is it in Paris?', () => 'unused', [calculatorTool]);
    expect(result).toEqual({
      calls: [],
      answer: 'I would need the current_time tool to answer that, and this request does not offer it.',
    });
  });
});
