import { describe, expect, it } from 'vitest';
import { numericConflict, readAnswer, resolveAnswers } from './committee-vote.js';

describe('committee answers', () => {
  it('reads the number and the confidence an answer gives', () => {
    expect(readAnswer('a', 'ANSWER: 1,200.5\nconfidence: 0.8\nbecause...')).toMatchObject({
      value: 1200.5,
      confidence: 0.8,
    });
    expect(readAnswer('a', ' 42 ')).toMatchObject({ value: 42 });
    expect(readAnswer('a', 'About 42 chairs, confidence 75%')).toEqual({
      role: 'a',
      text: 'About 42 chairs, confidence 75%',
      confidence: 0.75,
    });
    expect(readAnswer('a', 'confidence: 7.5').confidence).toBeUndefined();
  });

  it('flags numbers further apart than the tolerance (seed 003: 5%), naming the outliers', () => {
    const answers = [readAnswer('a', '100'), readAnswer('b', '102'), readAnswer('c', '120')];
    expect(numericConflict(answers, 0.05)).toEqual({
      min: 100,
      max: 120,
      spread: 20 / 120,
      tolerance: 0.05,
      outliers: ['c'],
    });
    expect(numericConflict([readAnswer('a', '100'), readAnswer('b', '104')], 0.05)).toBeNull();
    expect(numericConflict([readAnswer('a', '100'), readAnswer('b', 'many')], 0.05)).toBeNull();
  });

  it('resolves by majority (numbers within the tolerance agree), falling back to confidence on a tie', () => {
    const answers = [
      readAnswer('a', 'ANSWER: 100\nconfidence: 0.6'),
      readAnswer('b', 'ANSWER: 102\nconfidence: 0.7'),
      readAnswer('c', 'ANSWER: 120\nconfidence: 0.9'),
    ];
    expect(resolveAnswers('majority', answers, 0.05)).toMatchObject({
      value: 100,
      decidedBy: 'majority',
      winners: ['a', 'b'],
      conflict: { outliers: ['c'] },
    });
    expect(resolveAnswers('confidence', answers, 0.05)).toMatchObject({
      value: 120,
      decidedBy: 'confidence',
      winners: ['c'],
    });
    const tie = [readAnswer('a', 'Yes.'), readAnswer('b', 'no\nconfidence: 0.9')];
    expect(resolveAnswers('majority', tie, 0.05)).toMatchObject({
      decidedBy: 'majority-tie→confidence',
      winners: ['b'],
      conflict: null,
    });
    expect(
      resolveAnswers('majority', [readAnswer('a', 'Paris.'), readAnswer('b', 'paris'), readAnswer('c', 'Lyon')], 0.05),
    ).toMatchObject({ winners: ['a', 'b'] });
  });
});
