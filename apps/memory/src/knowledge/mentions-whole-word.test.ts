import { describe, expect, it } from 'vitest';
import { mentionsWholeWord } from './fact-queries.js';

describe('mentionsWholeWord', () => {
  it('matches the subject as a whole word or phrase, ignoring case', () => {
    expect(mentionsWholeWord('Ann booked a train.', 'Ann')).toBe(true);
    expect(mentionsWholeWord("about ann's party", 'Ann')).toBe(true);
    expect(mentionsWholeWord('Met (Ann) at noon', 'ann')).toBe(true);
    expect(mentionsWholeWord('Mary Ann Evans wrote it', 'mary ann')).toBe(true);
  });

  it('does not match inside a longer word, in any script', () => {
    expect(mentionsWholeWord('Anna and Joanne and Annabel', 'Ann')).toBe(false);
    expect(mentionsWholeWord('Anné came', 'Ann')).toBe(false);
    expect(mentionsWholeWord('ann_2 logged in', 'Ann')).toBe(false);
    expect(mentionsWholeWord('Zoë said hi', 'Zo')).toBe(false);
  });

  it('treats regular-expression characters in the subject literally', () => {
    expect(mentionsWholeWord('She writes C++ daily', 'C++')).toBe(true);
    expect(mentionsWholeWord('She writes Cxx daily', 'C.+')).toBe(false);
    expect(mentionsWholeWord('anything', '')).toBe(false);
  });
});
