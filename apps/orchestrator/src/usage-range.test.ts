import { PlatformError } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { usageRangeOf } from './usage-range.js';

const now = new Date('2026-03-15T23:30:00Z');
const codeOf = (from: string, to: string): string | undefined => {
  try {
    usageRangeOf(from, to, now);
    return undefined;
  } catch (err) {
    return err instanceof PlatformError ? err.code : 'not a PlatformError';
  }
};

describe('usageRangeOf', () => {
  it('defaults to today (UTC), and a missing start to the end', () => {
    expect(usageRangeOf('', '', now)).toEqual({ fromDay: '2026-03-15', toDay: '2026-03-15' });
    expect(usageRangeOf('', '2026-03-01', now)).toEqual({ fromDay: '2026-03-01', toDay: '2026-03-01' });
    expect(usageRangeOf('2026-03-01', '', now)).toEqual({ fromDay: '2026-03-01', toDay: '2026-03-15' });
  });

  it('accepts up to 366 days, leap days included', () => {
    expect(usageRangeOf('2024-02-29', '2025-02-28', now)).toEqual({ fromDay: '2024-02-29', toDay: '2025-02-28' });
    expect(codeOf('2024-02-29', '2025-03-01')).toBe('INVALID_RANGE');
  });

  it('refuses days that are not YYYY-MM-DD or do not exist, and a start after the end', () => {
    for (const bad of ['2026-3-1', '2026-02-30', '2025-02-29', 'yesterday', '2026-03-01T00:00:00Z', '2026-13-01'])
      expect(codeOf(bad, '2026-03-15')).toBe('INVALID_DAY');
    expect(codeOf('2026-03-10', '2026-03-09')).toBe('INVALID_RANGE');
  });
});
