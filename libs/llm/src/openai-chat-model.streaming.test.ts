import type { ModelRequest, ToolCallDelta, ToolSchema } from '@platform/agent-loop';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from './openai-chat-model.js';
import { SIM_API_KEY, startLlmSim, type RunningLlmSim } from './test-support/llm-sim.js';

let sim: RunningLlmSim;
let model: OpenAIChatModel;

beforeAll(async () => {
  sim = await startLlmSim();
  model = new OpenAIChatModel({ baseURL: sim.baseURL, apiKey: SIM_API_KEY, model: 'sim-1', timeoutMs: 5_000 });
});
afterAll(async () => sim?.stop());

const tools: ToolSchema[] = [
  {
    name: 'calculator',
    description: 'math',
    parameters: { type: 'object', properties: { expression: { type: 'string' } } },
  },
  {
    name: 'current_time',
    description: 'clock',
    parameters: { type: 'object', properties: { timezone: { type: 'string' } } },
  },
];

function request(content: string): ModelRequest {
  return { messages: [{ role: 'user', content }], tools, toolChoice: 'auto' };
}

/** The same request both ways; returns the streamed answer, the plain one and the text pieces. */
async function bothWays(content: string) {
  const pieces: string[] = [];
  const streamed = await model.complete({ ...request(content), onTextDelta: (delta) => pieces.push(delta) });
  const plain = await model.complete(request(content));
  return { streamed, plain, pieces };
}

describe('OpenAIChatModel streaming against llm-sim over HTTP', () => {
  it('asks for a stream with usage', async () => {
    await model.complete({ ...request('[scenario:plain] which body?'), onTextDelta: () => undefined });
    const log = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as {
      requests: { body: Record<string, unknown> }[];
    };
    expect(log.requests.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('streams a text answer in several pieces that join to the full content', async () => {
    const { streamed, plain, pieces } = await bothWays('[scenario:plain] tell me something');
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toBe(streamed.message.content);
    expect(streamed.message.content).toContain('You said: tell me something');
    expect(streamed.finishReason).toBe('stop');
    expect(streamed.usage.inputTokens).toBeGreaterThan(0);
    expect(streamed.usage.outputTokens).toBeGreaterThan(0);
    expect(streamed.usage.totalTokens).toBe(streamed.usage.inputTokens + streamed.usage.outputTokens);
    expect(streamed).toEqual(plain);
  });

  it.each([
    ['calculator', 'go', [{ name: 'calculator', args: { expression: '12 * (3 + 4)' } }]],
    [
      // The default scenario works out what the user asks: arithmetic and a time question.
      'demo',
      'What is (17 + 25) * 3, and what time is it in Tokyo?',
      [
        { name: 'calculator', args: { expression: '(17 + 25) * 3' } },
        { name: 'current_time', args: { timezone: 'Asia/Tokyo' } },
      ],
    ],
    [
      'parallel-three',
      'go',
      [
        { name: 'calculator', args: { expression: '1 + 2' } },
        { name: 'current_time', args: { timezone: 'Europe/Paris' } },
        { name: 'calculator', args: { expression: '6 * 7' } },
      ],
    ],
  ])('assembles the streamed tool-call argument deltas of %s', async (scenario, content, expected) => {
    const { streamed, plain, pieces } = await bothWays(`[scenario:${scenario}] ${content}`);
    expect(pieces).toEqual([]);
    expect(streamed.finishReason).toBe('tool_calls');
    expect(streamed.message.content).toBeNull();
    const calls = streamed.message.toolCalls ?? [];
    expect(calls.map((call) => ({ name: call.name, args: JSON.parse(call.arguments) as unknown }))).toEqual(expected);
    expect(new Set(calls.map((call) => call.id)).size).toBe(expected.length);
    expect(streamed.usage.inputTokens).toBeGreaterThan(0);
    expect(streamed).toEqual(plain);
  });

  it('hears each tool call as it appears, then its argument pieces in order, adding up to its arguments', async () => {
    const deltas: ToolCallDelta[] = [];
    const streamed = await model.complete({
      ...request('[scenario:parallel-three] go'),
      onToolCallDelta: (delta) => deltas.push(delta),
    });
    const calls = streamed.message.toolCalls ?? [];
    expect(calls).toHaveLength(3);
    for (const [index, call] of calls.entries()) {
      const own = deltas.filter((d) => d.index === index);
      // The first delta is the call appearing: its id and name, and no arguments yet (llm-sim sends them after).
      expect(own[0]).toEqual({ index, id: call.id, name: call.name, arguments: '' });
      // Then several pieces (llm-sim sends 5 characters at a time), every one with the call's id and name.
      expect(own.length).toBeGreaterThan(2);
      expect(own.every((d) => d.id === call.id && d.name === call.name)).toBe(true);
      expect(own.map((d) => d.arguments).join('')).toBe(call.arguments);
    }
    // A stream of tool calls only: no text pieces were needed to stream it.
    expect(streamed).toEqual(await model.complete(request('[scenario:parallel-three] go')));
  });

  it('answers with text when tools are disabled, identically both ways', async () => {
    const noTools = { ...request('[scenario:demo] no tools please'), toolChoice: 'none' as const };
    const streamed = await model.complete({ ...noTools, onTextDelta: () => undefined });
    expect(streamed.finishReason).toBe('stop');
    expect(streamed.message.toolCalls).toBeUndefined();
    expect(streamed).toEqual(await model.complete(noTools));
  });
});
