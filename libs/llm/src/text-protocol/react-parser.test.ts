import { describe, expect, it } from 'vitest';
import { parseReActReply } from './react-parser.js';

describe('parseReActReply', () => {
  it('reads a thought and an action', () => {
    expect(
      parseReActReply('Thought: I need the weather.\nAction: {"tool": "get_weather", "arguments": {"city": "Oslo"}}'),
    ).toEqual({
      kind: 'action',
      thought: 'I need the weather.',
      tool: 'get_weather',
      arguments: { city: 'Oslo' },
      repaired: false,
    });
  });

  it('flags an action whose JSON had to be repaired', () => {
    expect(parseReActReply("Action: {'tool': 'search', 'arguments': {'q': 'x'},}")).toMatchObject({
      kind: 'action',
      repaired: true,
    });
  });

  it('lets a final answer win over an action in the same reply', () => {
    const reply = parseReActReply(
      'Thought: t\nAction: {"tool": "search", "arguments": {}}\nObservation: made up\nFinal Answer: 42',
    );
    expect(reply).toEqual({ kind: 'final', thought: 't', answer: '42' });
  });

  it('keeps a thought that spans lines and ends it at the next label', () => {
    const reply = parseReActReply('Thought: first line\nsecond line\nFinal Answer: done');
    expect(reply.thought).toBe('first line\nsecond line');
  });

  it('takes the prose before the action as the thought when there is no Thought label', () => {
    expect(parseReActReply('Let me check.\nAction: {"tool": "t", "arguments": {}}').thought).toBe('Let me check.');
  });

  it('reads the thought of a JSON-only reply from its object', () => {
    expect(parseReActReply('{"thought": "why", "action": "search", "action_input": {"q": 1}}')).toMatchObject({
      kind: 'action',
      thought: 'why',
      tool: 'search',
      arguments: { q: 1 },
    });
  });

  it('decodes arguments given as a JSON-encoded string', () => {
    expect(parseReActReply('Action: {"name": "s", "parameters": "{\\"q\\": 1}"}')).toMatchObject({
      kind: 'action',
      tool: 's',
      arguments: { q: 1 },
    });
  });

  it('reads the tool name from the Action line and the arguments from Action Input', () => {
    expect(parseReActReply('Action: calculator\nAction Input: {"expression": "1+1"}')).toMatchObject({
      kind: 'action',
      tool: 'calculator',
      arguments: { expression: '1+1' },
    });
  });

  it('ignores labels inside JSON strings', () => {
    const reply = parseReActReply('Action: {"tool": "note", "arguments": {"text": "Final Answer: later"}}');
    expect(reply).toMatchObject({ kind: 'action', tool: 'note', arguments: { text: 'Final Answer: later' } });
  });

  it('ignores hidden reasoning blocks', () => {
    expect(parseReActReply('<think>Final Answer: draft</think>\nAction: {"tool": "t", "arguments": {}}')).toMatchObject(
      { kind: 'action', tool: 't' },
    );
  });

  it.each([
    ['', 'no_action_or_final'],
    ['Just some prose.', 'no_action_or_final'],
    ['Action: search the web', 'invalid_json'],
    ['Action: {tool => "x"}', 'invalid_json'],
    ['Action: [1, 2]', 'not_object'],
    ['Action: {"arguments": {}}', 'missing_tool'],
    ['Action: {"tool": "t", "arguments": [1]}', 'arguments_not_object'],
    ['Action: t\nAction Input: plain words', 'arguments_not_object'],
    ['Final Answer:   ', 'empty_final_answer'],
    [`Action: {"tool": "${'x'.repeat(300)}", "arguments": {}}`, 'invalid_tool_name'],
  ])('reports %j as %s with a readable message', (text, code) => {
    const reply = parseReActReply(text);
    expect(reply.kind).toBe('error');
    if (reply.kind !== 'error') return;
    expect(reply.error.code).toBe(code);
    expect(reply.error.message.length).toBeGreaterThan(10);
  });

  it('quotes the offending action text in the JSON error', () => {
    const reply = parseReActReply('Action: {tool search}');
    expect(reply.kind === 'error' && reply.error.message).toContain('{tool search}');
  });
});
