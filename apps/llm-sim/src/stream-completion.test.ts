import { describe, expect, it } from 'vitest';
import { buildStreamChunks, splitFixed, splitWords } from './stream-completion.js';
import { usageOf } from './usage.js';

const meta = { id: 'chatcmpl-x', created: 1, model: 'sim-1' };

describe('stream chunking', () => {
  it('splits text into words without losing characters', () => {
    const text = '  Hello,  streaming world!\n ';
    expect(splitWords(text).length).toBeGreaterThan(2);
    expect(splitWords(text).join('')).toBe(text);
    expect(splitFixed('abcdefghijkl', 5)).toEqual(['abcde', 'fghij', 'kl']);
  });

  it('orders chunks like the real API', () => {
    const chunks = buildStreamChunks(
      {
        content: 'Hi there',
        toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"1+1"}' }],
        finishReason: 'tool_calls',
      },
      meta,
      usageOf(3, 4),
    ) as Array<{ choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>; usage?: unknown }>;
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    expect(chunks[1]!.choices[0]!.delta).toEqual({ content: 'Hi' });
    expect(chunks[2]!.choices[0]!.delta).toEqual({ content: ' there' });
    expect(chunks[3]!.choices[0]!.delta).toEqual({
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '' } }],
    });
    const finish = chunks.at(-2)!;
    expect(finish.choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    expect(finish.usage).toBeNull();
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  it('omits usage entirely without include_usage', () => {
    const chunks = buildStreamChunks({ content: 'x', toolCalls: [], finishReason: 'stop' }, meta, undefined);
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
  });
});
