import type OpenAI from 'openai';
import { RateLimitError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calculatorTool, platformTools, startSim, type RunningSim } from './test-support/sim.js';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

let sim: RunningSim;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSim();
  client = sim.client();
});
afterAll(() => sim.close());

async function collect(stream: AsyncIterable<Chunk>): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('POST /v1/chat/completions with stream: true (openai client)', () => {
  it('streams parallel tool calls with arguments split across chunks', async () => {
    const chunks = await collect(
      await client.chat.completions.create({
        model: 'sim-1',
        messages: [{ role: 'user', content: 'What is (17 + 25) * 3, and the time in Tokyo?' }],
        tools: platformTools,
        stream: true,
      }),
    );
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(new Set(chunks.map((c) => c.created)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'sim-1')).toBe(true);
    expect(chunks[0]!.choices[0]!.delta).toMatchObject({ role: 'assistant', content: '' });
    expect(chunks.every((c) => c.usage === undefined)).toBe(true);

    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    const headers = deltas.filter((d) => d.id !== undefined);
    expect(headers.map((d) => [d.index, d.type, d.function?.name, d.function?.arguments])).toEqual([
      [0, 'function', 'calculator', ''],
      [1, 'function', 'current_time', ''],
    ]);
    const argumentPieces = (index: number) =>
      deltas.filter((d) => d.index === index && d.id === undefined).map((d) => d.function?.arguments ?? '');
    expect(argumentPieces(0).length).toBeGreaterThan(1);
    expect(argumentPieces(1).length).toBeGreaterThan(1);
    expect(JSON.parse(argumentPieces(0).join(''))).toEqual({ expression: '(17 + 25) * 3' });
    expect(JSON.parse(argumentPieces(1).join(''))).toEqual({ timezone: 'Asia/Tokyo' });

    const last = chunks.at(-1)!;
    expect(last.choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
  });

  it('assembles into the same message with the stream helper', async () => {
    const runner = client.chat.completions.stream({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:calculator] go' }],
      tools: [calculatorTool],
    });
    const completion = await runner.finalChatCompletion();
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(JSON.parse(call.function.arguments)).toEqual({ expression: '12 * (3 + 4)' });
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('splits text over several chunks and adds usage only with include_usage', async () => {
    const chunks = await collect(
      await client.chat.completions.create({
        model: 'sim-1',
        messages: [{ role: 'user', content: '[scenario:plain] hello there' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const textPieces = chunks.map((c) => c.choices[0]?.delta.content).filter((t): t is string => Boolean(t));
    expect(textPieces.length).toBeGreaterThan(3);
    expect(textPieces.join('')).toBe('Hello! This is a plain answer from the simulated model. You said: hello there');
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(usageChunk.usage!.completion_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
  });

  it('returns faults as a plain HTTP error before any chunk', async () => {
    const error = await client.chat.completions
      .create({
        model: 'sim-1',
        messages: [{ role: 'user', content: '[scenario:rate-limit-once] stream' }],
        stream: true,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    const retried = await collect(
      await client.chat.completions.create({
        model: 'sim-1',
        messages: [{ role: 'user', content: '[scenario:rate-limit-once] stream' }],
        stream: true,
      }),
    );
    expect(retried.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Answered after a rate-limit retry.');
  });

  it('breaks a stream off mid-answer with a stream_cut fault (the client sees an error after some text), then answers whole', async () => {
    const request = {
      model: 'sim-1',
      messages: [{ role: 'user' as const, content: '[scenario:stream-cut-once] go' }],
      stream: true as const,
    };
    const seen: Chunk[] = [];
    const error = await (async () => {
      for await (const chunk of await client.chat.completions.create(request)) seen.push(chunk);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    // The role chunk and two words arrived before the connection broke.
    expect(seen.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('The answer,');
    const retried = await collect(await client.chat.completions.create(request));
    expect(retried.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(
      'The answer, streamed word by word, arrives whole on the second try.',
    );
  });

  it('drops the connection of a non-streamed request with a stream_cut fault', async () => {
    const error = await client.chat.completions
      .create({ model: 'sim-1', messages: [{ role: 'user', content: '[scenario:stream-cut-once] whole' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const retried = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:stream-cut-once] whole' }],
    });
    expect(retried.choices[0]!.message.content).toBe(
      'The answer, streamed word by word, arrives whole on the second try.',
    );
  });

  it('frames events exactly like the real API', async () => {
    const response = await fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({
        model: 'sim-1',
        messages: [{ role: 'user', content: '[scenario:plain] hi' }],
        stream: true,
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const events = text.split('\n\n');
    expect(events.at(-1)).toBe('');
    expect(events.at(-2)).toBe('data: [DONE]');
    expect(events.slice(0, -2).every((e) => e.startsWith('data: {'))).toBe(true);
  });
});
