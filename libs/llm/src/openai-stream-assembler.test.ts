import type OpenAI from 'openai';
import type { ToolCallDelta } from '@platform/agent-loop';
import { describe, expect, it } from 'vitest';
import { fromOpenAIMessage } from './openai-messages.js';
import { ChatStreamAssembler } from './openai-stream-assembler.js';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): Chunk {
  return {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm-1',
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  } as Chunk;
}

describe('ChatStreamAssembler', () => {
  it('concatenates text and returns each piece', () => {
    const assembler = new ChatStreamAssembler();
    const pieces = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({}, 'stop'),
    ].map((c) => assembler.add(c));
    expect(pieces).toEqual(['', 'Hel', 'lo', '']);
    expect(
      assembler.add({
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm-1',
        choices: [],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      }),
    ).toBe('');
    expect(assembler.result()).toEqual({
      message: { role: 'assistant', content: 'Hello', refusal: null },
      finishReason: 'stop',
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      model: 'm-1',
    });
  });

  it("streams a refusal as text and keeps it as the message's text", () => {
    const assembler = new ChatStreamAssembler();
    const pieces = [
      chunk({ role: 'assistant', content: null, refusal: '' }),
      chunk({ refusal: 'I cannot ' }),
      chunk({ refusal: 'help.' }),
      chunk({}, 'stop'),
    ].map((c) => assembler.add(c));
    expect(pieces).toEqual(['', 'I cannot ', 'help.', '']);
    const { message } = assembler.result();
    expect(message).toMatchObject({ content: null, refusal: 'I cannot help.' });
    expect(fromOpenAIMessage(message, 'openai', 'gpt-x').content).toBe('I cannot help.');
  });

  it("tells each tool call when it appears and each piece of its arguments, with the call's id and name", () => {
    const deltas: ToolCallDelta[] = [];
    const assembler = new ChatStreamAssembler((delta) => deltas.push(delta));
    for (const c of [
      chunk({ role: 'assistant', content: 'Let me check.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'calc', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ex' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', function: { name: 'time', arguments: '{"tz"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '":1}' } }] }),
      // A delta with nothing new (some servers send empty argument pieces) is not told.
      chunk({ tool_calls: [{ index: 1, function: { arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ':"UTC"}' } }] }),
      chunk({}, 'tool_calls'),
    ])
      assembler.add(c);
    expect(deltas).toEqual([
      { index: 0, id: 'call_a', name: 'calc', arguments: '' },
      { index: 0, id: 'call_a', name: 'calc', arguments: '{"ex' },
      { index: 1, id: 'call_b', name: 'time', arguments: '{"tz"' },
      { index: 0, id: 'call_a', name: 'calc', arguments: '":1}' },
      { index: 1, id: 'call_b', name: 'time', arguments: ':"UTC"}' },
    ]);
    const calls = assembler.result().message.tool_calls ?? [];
    for (const [index, call] of calls.entries())
      expect(
        deltas
          .filter((d) => d.index === index)
          .map((d) => d.arguments)
          .join(''),
      ).toBe(call.type === 'function' ? call.function.arguments : undefined);
  });

  it('assembles interleaved tool calls by index and keeps provider fields of calls and message', () => {
    const assembler = new ChatStreamAssembler();
    const chunks = [
      chunk({ role: 'assistant', content: null, reasoning_content: 'Let me ' }),
      chunk({ reasoning_content: 'think.' }),
      chunk({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'time', arguments: '' } }] }),
      chunk({
        tool_calls: [
          {
            index: 0,
            id: 'a',
            type: 'function',
            function: { name: 'calc', arguments: '{"x"' },
            extra_content: { google: { thought_signature: 'sig' } },
          },
        ],
      }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }),
      // Later deltas repeating the name must not double it.
      chunk({ tool_calls: [{ index: 0, function: { name: 'calc', arguments: ':1}' } }] }),
      chunk({}, 'tool_calls'),
    ];
    for (const c of chunks) assembler.add(c);
    const { message, finishReason } = assembler.result();
    expect(finishReason).toBe('tool_calls');
    expect(fromOpenAIMessage(message, 'gemini', 'm-1')).toEqual({
      role: 'assistant',
      content: null,
      toolCalls: [
        {
          id: 'a',
          name: 'calc',
          arguments: '{"x":1}',
          providerFields: { extra_content: { google: { thought_signature: 'sig' } } },
        },
        { id: 'b', name: 'time', arguments: '{}' },
      ],
      provider: 'gemini',
      model: 'm-1',
      providerFields: { reasoning_content: 'Let me think.' },
    });
  });

  it('copes with servers that omit the tool-call index', () => {
    const assembler = new ChatStreamAssembler();
    const noIndex = (call: Record<string, unknown>) => chunk({ tool_calls: [call] });
    for (const c of [
      noIndex({ id: 'a', function: { name: 'f', arguments: '{"a"' } }),
      noIndex({ function: { arguments: ':1}' } }),
      noIndex({ id: 'b', function: { name: 'g', arguments: '{}' } }),
    ]) {
      assembler.add(c);
    }
    expect(assembler.finished).toBe(false);
    expect(assembler.result().message.tool_calls).toEqual([
      { id: 'a', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
      { id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } },
    ]);
  });
});
