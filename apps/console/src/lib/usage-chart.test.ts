import { describe, expect, it } from 'vitest';
import { daysBetween, usageBars } from './usage-chart.js';

describe('the usage chart', () => {
  it('has a slot for every day of the range, empty days at zero', () => {
    expect(daysBetween('2026-02-27', '2026-03-01')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    const bars = usageBars(
      [
        { day: '2026-02-28', turns: 4, inputTokens: 300, outputTokens: 100 },
        { day: '2026-03-01', turns: 2, inputTokens: 100, outputTokens: 100 },
      ],
      '2026-02-27',
      '2026-03-01',
      300,
      100,
    );
    expect(bars.map((b) => [b.day, b.x, b.turnsHeight, b.tokensHeight])).toEqual([
      ['2026-02-27', 0, 0, 0],
      ['2026-02-28', 100, 100, 100],
      ['2026-03-01', 200, 50, 50],
    ]);
  });
});
