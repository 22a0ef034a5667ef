import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutText, shortenText } from './text.js';

/** Whether a string has a surrogate half without its partner. */
const hasLoneSurrogate = (s: string): boolean =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe('cutText and shortenText', () => {
  it('never split a surrogate pair, and keep as much as fits', () => {
    expect(cutText('ab😀', 3)).toEqual({ text: 'ab', cut: true });
    expect(cutText('ab😀', 4)).toEqual({ text: 'ab😀', cut: false });
    expect(cutText('abc', 3)).toEqual({ text: 'abc', cut: false });
    expect(shortenText('ab😀cd', 4)).toBe('ab…');
    expect(shortenText('abcdef', 4)).toBe('abc…');
    expect(shortenText('abc', 4)).toBe('abc');
  });

  it('leave no lone surrogate in well-formed text, whatever the limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.nat({ max: 80 }), (text, max) => {
        const { text: cut } = cutText(text, max);
        expect(cut.length).toBeLessThanOrEqual(Math.max(max, 0));
        expect(text.startsWith(cut)).toBe(true);
        expect(hasLoneSurrogate(cut)).toBe(false);
        const short = shortenText(text, Math.max(max, 1));
        expect(short.length).toBeLessThanOrEqual(Math.max(max, 1));
        expect(hasLoneSurrogate(short)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
