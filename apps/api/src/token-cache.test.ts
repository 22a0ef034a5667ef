import { describe, expect, it } from 'vitest';
import { TokenCache } from './token-cache.js';

function cache(
  maxEntries = 3,
  maxAgeMs = 60_000,
  clockToleranceSeconds = 5,
): { tokens: TokenCache<string>; clock: { now: number } } {
  const clock = { now: 1_000_000 };
  return {
    tokens: new TokenCache<string>({ maxEntries, maxAgeMs, clockToleranceSeconds, now: () => clock.now }),
    clock,
  };
}

describe('TokenCache', () => {
  it('answers a remembered token until its exp (plus the clock tolerance), not after', () => {
    const { tokens, clock } = cache();
    tokens.set('t', 'acme', clock.now / 1000 + 10);
    expect(tokens.get('t')).toBe('acme');
    clock.now += 14_999;
    expect(tokens.get('t')).toBe('acme');
    clock.now += 1;
    expect(tokens.get('t')).toBeUndefined();
    expect(tokens.size).toBe(0);
  });

  it('never trusts a token longer than its max age, even one without exp', () => {
    const { tokens, clock } = cache(3, 500);
    tokens.set('no-exp', 'acme', undefined);
    tokens.set('far-exp', 'globex', clock.now / 1000 + 3600);
    clock.now += 499;
    expect([tokens.get('no-exp'), tokens.get('far-exp')]).toEqual(['acme', 'globex']);
    clock.now += 1;
    expect([tokens.get('no-exp'), tokens.get('far-exp')]).toEqual([undefined, undefined]);
  });

  it('does not keep a token that has expired already', () => {
    const { tokens, clock } = cache(3, 60_000, 0);
    tokens.set('old', 'acme', clock.now / 1000 - 1);
    expect(tokens.get('old')).toBeUndefined();
    expect(tokens.size).toBe(0);
  });

  it('drops the least recently used token when full', () => {
    const { tokens } = cache(2);
    tokens.set('a', 'A', undefined);
    tokens.set('b', 'B', undefined);
    expect(tokens.get('a')).toBe('A'); // a is now the most recently used
    tokens.set('c', 'C', undefined);
    expect([tokens.get('a'), tokens.get('b'), tokens.get('c')]).toEqual(['A', undefined, 'C']);
    expect(tokens.size).toBe(2);
  });

  it('remembers nothing with maxEntries 0', () => {
    const { tokens } = cache(0);
    tokens.set('a', 'A', undefined);
    expect(tokens.get('a')).toBeUndefined();
  });
});
