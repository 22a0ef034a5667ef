import { describe, expect, it } from 'vitest';
import { estimateTokens, fuseRankings, whyRecalled } from './rank-fusion.js';

describe('fuseRankings', () => {
  const settings = { k: 60, halfLifeDays: 0 };

  it('puts an item found by several searches above one found by a single search', () => {
    const fused = fuseRankings(
      [
        { search: 'fulltext', keys: ['a', 'b'] },
        { search: 'trigram', keys: ['b', 'c'] },
      ],
      () => 0,
      settings,
    );
    expect(fused.map((f) => f.key)).toEqual(['b', 'a', 'c']);
    expect(fused[0]!.matchedBy).toEqual(['fulltext#2', 'trigram#1']);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61);
  });

  it('halves the score per half-life of age', () => {
    const fused = fuseRankings([{ search: 'fulltext', keys: ['old', 'new'] }], (key) => (key === 'old' ? 90 : 0), {
      k: 60,
      halfLifeDays: 90,
    });
    expect(fused.map((f) => f.key)).toEqual(['new', 'old']);
    expect(fused.find((f) => f.key === 'old')!.recency).toBeCloseTo(0.5);
    expect(whyRecalled(fused[1]!)).toBe('full text rank 1; 90 days old (x0.50)');
  });

  it('estimates tokens from characters', () => {
    expect(estimateTokens('')).toBe(1);
    expect(estimateTokens('x'.repeat(40))).toBe(10);
  });
});
