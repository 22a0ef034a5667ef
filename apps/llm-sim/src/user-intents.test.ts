// What the default scenario makes of a user's text: arithmetic, time questions, nothing else.
import { describe, expect, it } from 'vitest';
import { arithmeticIn, intentsOf, timeZonesIn } from './user-intents.js';

describe('arithmeticIn', () => {
  it('finds the expressions a calculator can take, without the words and punctuation around them', () => {
    expect(arithmeticIn('What is 2^10?')).toEqual(['2^10']);
    expect(arithmeticIn('What is (17 + 25) * 3, and what time is it in Tokyo right now?')).toEqual(['(17 + 25) * 3']);
    expect(arithmeticIn('How much is 7 × 6 and 9 ÷ 3.')).toEqual(['7 * 6', '9 / 3']);
    expect(arithmeticIn('compute 2+2, then 3*3')).toEqual(['2+2', '3*3']);
    expect(arithmeticIn('what is 1.5 * (2 - 0.5)?')).toEqual(['1.5 * (2 - 0.5)']);
  });

  it('takes no numbers that are not arithmetic', () => {
    expect(arithmeticIn('I have 3 cats')).toEqual([]);
    expect(arithmeticIn('my flight is on 2026-12-02')).toEqual([]);
    expect(arithmeticIn('Tell me a joke')).toEqual([]);
  });
});

describe('timeZonesIn', () => {
  it('names the zones of the places a time question asks about, UTC when it names none', () => {
    expect(timeZonesIn('what time is it in Tokyo right now?')).toEqual(['Asia/Tokyo']);
    expect(timeZonesIn('The time in London and New York?')).toEqual(['Europe/London', 'America/New_York']);
    expect(timeZonesIn('current time in Europe/Lisbon')).toEqual(['Europe/Lisbon']);
    expect(timeZonesIn('What time is it?')).toEqual(['UTC']);
  });

  it('asks no time when the text does not ask it', () => {
    expect(timeZonesIn('I fly to Tokyo tomorrow')).toEqual([]);
    expect(timeZonesIn('What is 2 times 3?')).toEqual([]);
  });
});

describe('intentsOf', () => {
  it('puts arithmetic first, then times', () => {
    expect(intentsOf('What is (17 + 25) * 3, and what time is it in Tokyo?')).toEqual([
      { tool: 'calculator', arguments: { expression: '(17 + 25) * 3' } },
      { tool: 'current_time', arguments: { timezone: 'Asia/Tokyo' } },
    ]);
    expect(intentsOf('Write me a poem')).toEqual([]);
  });
});
