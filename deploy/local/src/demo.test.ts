import { describe, expect, it } from 'vitest';
import { renderExchange } from './demo.js';

describe('renderExchange', () => {
  it('shows the user message, tool calls, tool results and the answer in order', () => {
    const lines = renderExchange([
      { role: 'user', content: 'What is 2 + 2?' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"2 + 2"}' }],
      },
      {
        role: 'tool',
        toolCallId: 'c1',
        toolName: 'calculator',
        content: '{"result":4}',
        status: 'success',
        isError: false,
      },
      {
        role: 'tool',
        toolCallId: 'c2',
        toolName: 'current_time',
        content: 'Error: no runner',
        status: 'failed',
        isError: true,
      },
      { role: 'assistant', content: 'It is 4.' },
    ]);
    expect(lines).toEqual([
      '  you    › What is 2 + 2?',
      '  model  › calls calculator {"expression":"2 + 2"}',
      '  tool   › calculator → {"result":4}',
      '  tool   › current_time ✗ Error: no runner',
      '  model  › It is 4.',
    ]);
  });
});
