import { describe, expect, it } from 'vitest';
import { RecallConcurrencyLimit, type RecallEnd } from './recall-concurrency-limit.js';

/** Takes `n` slots (all must be granted) and returns their release functions. */
function take(limit: RecallConcurrencyLimit, n: number): Array<(end: RecallEnd) => void> {
  return Array.from({ length: n }, () => {
    const release = limit.tryAcquire();
    if (!release) throw new Error('no slot');
    return release;
  });
}

describe('RecallConcurrencyLimit', () => {
  it('grants slots up to the limit and refuses the next until one is given back', () => {
    const limit = new RecallConcurrencyLimit({ max: 3 });
    const releases = take(limit, 3);
    expect(limit.inFlight).toBe(3);
    expect(limit.tryAcquire()).toBeUndefined();
    releases[0]?.('failed');
    expect(limit.inFlight).toBe(2);
    expect(limit.tryAcquire()).toBeTypeOf('function');
  });

  it('shrinks once for a burst of timeouts from recalls started under the same limit', () => {
    const limit = new RecallConcurrencyLimit({ max: 16, backoff: 0.5 });
    const releases = take(limit, 16);
    for (const release of releases) release('timed_out');
    expect(limit.limit).toBe(8);
    // Recalls started after the decrease count again.
    const next = take(limit, 8);
    next[0]?.('timed_out');
    expect(limit.limit).toBe(4);
    for (const release of next.slice(1)) release('timed_out');
    expect(limit.limit).toBe(4);
  });

  it('grows back by about one per round of fast answers, never past the ceiling', () => {
    const limit = new RecallConcurrencyLimit({ max: 8, backoff: 0.5 });
    take(limit, 1)[0]?.('timed_out');
    expect(limit.limit).toBe(4);
    for (let i = 0; i < 4; i++) take(limit, 1)[0]?.('answered');
    expect(limit.limit).toBe(4);
    for (let i = 0; i < 2; i++) take(limit, 1)[0]?.('answered');
    expect(limit.limit).toBe(5);
    for (let i = 0; i < 100; i++) take(limit, 1)[0]?.('answered');
    expect(limit.limit).toBe(8);
  });

  it('holds the limit on failures that say nothing about load', () => {
    const limit = new RecallConcurrencyLimit({ max: 8, backoff: 0.5 });
    take(limit, 1)[0]?.('timed_out');
    for (let i = 0; i < 50; i++) take(limit, 1)[0]?.('failed');
    expect(limit.limit).toBe(4);
  });

  it('never shrinks below the floor, so a recall still probes an overloaded memory', () => {
    const limit = new RecallConcurrencyLimit({ max: 4, min: 1, backoff: 0.5 });
    for (let i = 0; i < 20; i++) take(limit, 1)[0]?.('timed_out');
    expect(limit.limit).toBe(1);
    expect(limit.tryAcquire()).toBeTypeOf('function');
  });

  it('counts a slot given back twice once', () => {
    const limit = new RecallConcurrencyLimit({ max: 2 });
    const [release] = take(limit, 1);
    release?.('answered');
    release?.('timed_out');
    expect(limit.inFlight).toBe(0);
    expect(limit.limit).toBe(2);
  });

  it('applies no cap when max is 0, and still counts what is in flight', () => {
    const limit = new RecallConcurrencyLimit({ max: 0 });
    expect(limit.enabled).toBe(false);
    const releases = take(limit, 500);
    expect(limit.inFlight).toBe(500);
    for (const release of releases) release('timed_out');
    expect(limit.inFlight).toBe(0);
    expect(limit.tryAcquire()).toBeTypeOf('function');
  });

  it('refuses settings that cannot work', () => {
    expect(() => new RecallConcurrencyLimit({ max: -1 })).toThrow(RangeError);
    expect(() => new RecallConcurrencyLimit({ max: 2.5 })).toThrow(RangeError);
    expect(() => new RecallConcurrencyLimit({ max: 4, backoff: 1 })).toThrow(RangeError);
    expect(() => new RecallConcurrencyLimit({ max: 4, backoff: 0 })).toThrow(RangeError);
  });
});
