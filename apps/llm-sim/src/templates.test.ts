import { renderMemoryContext } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './chat-request.js';
import { renderArguments, renderTemplate, templateContextFrom, unknownTemplates } from './templates.js';

const messages: ChatMessage[] = [
  { role: 'user', content: 'earlier question' },
  { role: 'assistant', content: 'earlier answer' },
  { role: 'user', content: '[scenario:demo] What is (17 + 25) * 3 and the time in Tokyo?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'calculator', arguments: '{}' } },
      { id: 't1', type: 'function', function: { name: 'current_time', arguments: '{}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', content: '{"expression":"(17 + 25) * 3","result":126,"steps":[1,{"x":"deep"}]}' },
  { role: 'tool', tool_call_id: 't1', content: [{ type: 'text', text: '{"timezone":"Asia/Tokyo","local":"21:05"}' }] },
];

describe('templates', () => {
  const ctx = templateContextFrom(messages);

  it('renders the latest user message without markers', () => {
    expect(renderTemplate('You asked: {{userMessage}}', ctx)).toBe(
      'You asked: What is (17 + 25) * 3 and the time in Tokyo?',
    );
  });

  it('renders tool results by tool name, whole or by JSON path', () => {
    expect(renderTemplate('{{toolResult:calculator.result}}', ctx)).toBe('126');
    expect(renderTemplate('{{ toolResult:current_time.local }}', ctx)).toBe('21:05');
    expect(renderTemplate('{{toolResult:calculator.steps.1.x}}', ctx)).toBe('deep');
    expect(renderTemplate('{{toolResult:calculator.steps}}', ctx)).toBe('[1,{"x":"deep"}]');
    expect(renderTemplate('{{toolResult:current_time}}', ctx)).toBe('{"timezone":"Asia/Tokyo","local":"21:05"}');
  });

  it('looks tool results up in the whole conversation, latest first, :resumed exchanges included', () => {
    const call = (id: string, name: string): ChatMessage => ({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name, arguments: '{}' } }],
    });
    const conversation: ChatMessage[] = [
      { role: 'user', content: '[scenario:travel-trip] plan' },
      call('f1', 'flight_search'),
      { role: 'tool', tool_call_id: 'f1', content: 'old flights' },
      call('f2', 'flight_search'),
      { role: 'tool', tool_call_id: 'f2', content: 'UA 123' },
      call('e1', 'send_email'),
      { role: 'tool', tool_call_id: 'e1', content: 'waiting for approval' },
      { role: 'user', content: 'yes' },
      call('e1:resumed', 'send_email'),
      { role: 'tool', tool_call_id: 'e1:resumed', content: 'sent' },
    ];
    const turn1 = templateContextFrom(conversation);
    expect(renderTemplate('{{toolResult:flight_search}} / {{toolResult:send_email}} / {{userMessage}}', turn1)).toBe(
      'UA 123 / sent / yes',
    );
    // A resumed result whose assistant call is absent is matched through the original call id.
    const withoutCall = templateContextFrom([
      ...conversation.slice(0, 8),
      { role: 'tool', tool_call_id: 'e1:resumed', content: 'sent!' },
    ]);
    expect(renderTemplate('{{toolResult:send_email}}', withoutCall)).toBe('sent!');
  });

  it('renders the last tool message', () => {
    expect(renderTemplate('{{lastToolResult}}', ctx)).toContain('Asia/Tokyo');
  });

  it('renders (unavailable) for anything missing', () => {
    expect(renderTemplate('{{toolResult:calculator.nope}}', ctx)).toBe('(unavailable)');
    expect(renderTemplate('{{toolResult:weather}}', ctx)).toBe('(unavailable)');
    expect(renderTemplate('{{toolResult:current_time.local.x}}', ctx)).toBe('(unavailable)');
    const empty = templateContextFrom([{ role: 'system', content: 's' }]);
    expect(renderTemplate('{{userMessage}}|{{lastToolResult}}|{{lastObservation}}', empty)).toBe(
      '(unavailable)|(unavailable)|(unavailable)',
    );
  });

  it('reads the latest Observation: message for text-protocol scenarios', () => {
    const text = templateContextFrom([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'Action: calculator' },
      { role: 'user', content: 'Observation: 42' },
    ]);
    expect(renderTemplate('{{lastObservation}} / {{userMessage}}', text)).toBe('42 / q');
  });

  it('reads the items of the long-term memory block in system messages', () => {
    const withMemory = templateContextFrom([
      {
        role: 'system',
        content: `You are helpful.\n\n${renderMemoryContext(['user prefers window seats', 'user lives in Berlin'])}`,
      },
      { role: 'user', content: 'Which seat?' },
    ]);
    expect(renderTemplate('I remember: {{recalledMemory}}.', withMemory)).toBe(
      'I remember: user prefers window seats; user lives in Berlin.',
    );
    expect(renderTemplate('{{recalledMemory}}', ctx)).toBe('(unavailable)');
  });

  it('renders inside nested argument strings only', () => {
    expect(renderArguments({ a: '{{toolResult:calculator.result}}', b: [1, '{{userMessage}}'], c: true }, ctx)).toEqual(
      {
        a: '126',
        b: [1, 'What is (17 + 25) * 3 and the time in Tokyo?'],
        c: true,
      },
    );
  });

  it('flags unknown templates', () => {
    expect(unknownTemplates('{{userMessage}} {{usermessage}} {{toolResult:}} {{toolResult:calc.x}}')).toEqual([
      '{{usermessage}}',
      '{{toolResult:}}',
    ]);
  });
});
