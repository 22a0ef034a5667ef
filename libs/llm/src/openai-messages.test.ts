import type { ChatMessage } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { fromOpenAIMessage, toOpenAIMessages, toOpenAITools } from './openai-messages.js';

describe('OpenAI message mapping', () => {
  it('renders every role in the Chat Completions format', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'persona' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"1+1"}' }],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 'calculator', content: '2', status: 'success', isError: false },
      { role: 'assistant', content: 'two' },
    ];
    expect(toOpenAIMessages(messages)).toEqual([
      { role: 'system', content: 'persona' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1+1"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '2' },
      { role: 'assistant', content: 'two' },
    ]);
  });

  it('keeps provider-specific fields of messages and tool calls through a round trip', () => {
    const wire = {
      role: 'assistant' as const,
      content: null,
      refusal: null,
      reasoning_content: 'thinking…',
      tool_calls: [
        {
          id: 'c9',
          type: 'function' as const,
          function: { name: 'search', arguments: '{}' },
          extra_content: { google: { thought_signature: 'sig' } },
        },
      ],
    };
    const message = fromOpenAIMessage(wire, 'gemini', 'gemini-x');
    expect(message).toEqual({
      role: 'assistant',
      content: null,
      toolCalls: [
        {
          id: 'c9',
          name: 'search',
          arguments: '{}',
          providerFields: { extra_content: { google: { thought_signature: 'sig' } } },
        },
      ],
      provider: 'gemini',
      model: 'gemini-x',
      providerFields: { reasoning_content: 'thinking…' },
    });
    const [back] = toOpenAIMessages([message]);
    expect(back).toMatchObject({
      reasoning_content: 'thinking…',
      tool_calls: [{ id: 'c9', extra_content: { google: { thought_signature: 'sig' } } }],
    });
  });

  it('reads a refusal as the message text, and sends an empty reply back as empty text (the API refuses null content without tool calls)', () => {
    const refused = fromOpenAIMessage(
      { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
      'openai',
      'gpt-x',
    );
    expect(refused.content).toBe('I cannot help with that.');
    const empty = fromOpenAIMessage({ role: 'assistant', content: null, refusal: null }, 'openai', 'gpt-x');
    expect(empty.content).toBeNull();
    expect(toOpenAIMessages([empty])).toEqual([{ role: 'assistant', content: '' }]);
  });

  it('describes tools as functions', () => {
    expect(toOpenAITools([{ name: 'calculator', description: 'd', parameters: { type: 'object' } }])).toEqual([
      { type: 'function', function: { name: 'calculator', description: 'd', parameters: { type: 'object' } } },
    ]);
  });
});
