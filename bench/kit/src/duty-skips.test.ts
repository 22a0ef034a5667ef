import { describe, expect, it } from 'vitest';
import { describeDutySkips, dutySkips } from './duty-skips.js';

describe('dutySkips', () => {
  const before = { recallSkipped: 10, ingestionPublished: 100 };

  it('counts recalls skipped and turns not sent to memory in the phase, and is valid up to 5%', () => {
    const skips = dutySkips(before, { recallSkipped: 13, ingestionPublished: 198 }, 100);
    expect(skips).toMatchObject({ skipped: 5, recall: 3, unpublished: 2, valid: true });
    expect(describeDutySkips(skips)).toBe(
      'valid: 5 of 100 turns (5.0%) skipped a duty (3 recalls shed or timed out, 2 turns not sent to memory)',
    );
  });

  it('is invalid past 5%, never counts more turns than the phase had, and a phase with no turns is invalid', () => {
    expect(dutySkips(before, { recallSkipped: 16, ingestionPublished: 200 }, 100)).toMatchObject({ valid: false });
    expect(dutySkips(before, { recallSkipped: 500, ingestionPublished: 100 }, 100)).toMatchObject({
      skipped: 100,
      share: 1,
    });
    expect(dutySkips(before, before, 0)).toMatchObject({ valid: false });
    expect(describeDutySkips(dutySkips(before, { recallSkipped: 40, ingestionPublished: 200 }, 100))).toMatch(
      /^\*\*INVALID\*\*: 30 of 100/,
    );
  });
});
