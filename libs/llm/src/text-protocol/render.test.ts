import type { ToolSchema } from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { renderTextView } from './render-history.js';
import { describeTool, renderAnswerOnlyProtocol, renderToolProtocol } from './render-prompt.js';

const calculator: ToolSchema = {
  name: 'calculator',
  description: 'Evaluates an arithmetic expression.',
  parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
};

describe('protocol prompt', () => {
  it('lists each tool with its description and JSON Schema on one line', () => {
    expect(describeTool(calculator)).toBe(
      '- calculator: Evaluates an arithmetic expression. Arguments (JSON Schema): {"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"]}',
    );
  });

  it('explains the Thought / Action / Final Answer format and one action per reply', () => {
    const section = renderToolProtocol([calculator]);
    expect(section).toContain(describeTool(calculator));
    expect(section).toContain('Thought:');
    expect(section).toContain('Action: {"tool": "<tool name>", "arguments": {');
    expect(section).toContain('Final Answer:');
    expect(section).toMatch(/one action per reply/i);
  });

  it('asks only for a final answer when tools are off', () => {
    const section = renderAnswerOnlyProtocol();
    expect(section).toContain('Final Answer:');
    expect(section).not.toContain('Action: {');
  });
});

describe('text view of the history', () => {
  const history: ChatMessage[] = [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: 'What is 6*7, and what is in a.txt?' },
    {
      role: 'assistant',
      content: 'Compute it.',
      toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"6*7"}' }],
      provider: 'openai',
      model: 'gpt-x',
      providerFields: { reasoning_content: 'hidden' },
    },
    { role: 'tool', toolCallId: 'call_1', toolName: 'calculator', content: '42', status: 'success', isError: false },
    {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'call_tp_2', name: 'read_file', arguments: '{"path":"a.txt"}' }],
      providerFields: {
        textProtocol: { raw: "Thought: read it\nAction: {'tool': 'read_file', 'arguments': {'path': 'a.txt'}}" },
      },
    },
    {
      role: 'tool',
      toolCallId: 'call_tp_2',
      toolName: 'read_file',
      content: 'no such file',
      status: 'failed',
      isError: true,
    },
  ];

  it('appends the protocol section to the first system message', () => {
    const [system] = renderTextView(history, 'SECTION');
    expect(system).toEqual({ role: 'system', content: 'You are helpful.\n\nSECTION' });
  });

  it('adds a system message when there is none', () => {
    expect(renderTextView([{ role: 'user', content: 'hi' }], 'SECTION')).toEqual([
      { role: 'system', content: 'SECTION' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('renders native tool calls as Thought/Action text and reuses the raw reply when kept', () => {
    const view = renderTextView(history, undefined);
    expect(view[2]).toEqual({
      role: 'assistant',
      content: 'Thought: Compute it.\nAction: {"tool": "calculator", "arguments": {"expression":"6*7"}}',
      provider: 'openai',
      model: 'gpt-x',
      providerFields: { reasoning_content: 'hidden' },
    });
    expect(view[4]).toEqual({
      role: 'assistant',
      content: "Thought: read it\nAction: {'tool': 'read_file', 'arguments': {'path': 'a.txt'}}",
    });
  });

  it('turns tool results into user observations, errors marked', () => {
    const view = renderTextView(history, undefined);
    expect(view[3]).toEqual({ role: 'user', content: 'Observation: 42' });
    expect(view[5]).toEqual({ role: 'user', content: 'Observation: Error: no such file' });
  });

  it('lets no tool role and no tool calls through', () => {
    for (const message of renderTextView(history, 'SECTION')) {
      expect(message.role).not.toBe('tool');
      expect(message).not.toHaveProperty('toolCalls');
    }
  });

  it('does not change the raw history', () => {
    const copy = structuredClone(history);
    renderTextView(history, 'SECTION');
    expect(history).toEqual(copy);
  });
});
