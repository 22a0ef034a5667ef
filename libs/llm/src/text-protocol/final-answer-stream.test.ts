import { describe, expect, it } from 'vitest';
import { finalAnswerStream } from './final-answer-stream.js';

function run(deltas: string[], mode: 'final-only' | 'final-or-prose'): string {
  let out = '';
  const push = finalAnswerStream((delta) => (out += delta), mode);
  for (const delta of deltas) push(delta);
  return out;
}

describe('finalAnswerStream', () => {
  it('streams only what follows Final Answer, even when the label is split across deltas', () => {
    expect(run(['Thought: easy.\nFinal Ans', 'wer:', ' The answer', ' is 42.'], 'final-only')).toBe(
      'The answer is 42.',
    );
  });

  it('streams nothing of an action reply', () => {
    expect(
      run(['Thought: look it up\n', 'Action: {"tool": "search", ', '"arguments": {"q": "x"}}'], 'final-only'),
    ).toBe('');
  });

  it('streams an unlabelled answer in answer-only mode', () => {
    expect(run(['Here is what I found', ' so far.'], 'final-or-prose')).toBe('Here is what I found so far.');
  });

  it('still strips the label in answer-only mode', () => {
    expect(run(['Final Answer: ', 'Paris'], 'final-or-prose')).toBe('Paris');
  });
});
