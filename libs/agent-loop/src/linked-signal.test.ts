import { describe, expect, it } from 'vitest';
import { linkSignals } from './linked-signal.js';

describe('linkSignals', () => {
  it('aborts with the reason of the first source that aborts', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkSignals([a.signal, b.signal]);
    b.abort(new Error('b stopped'));
    a.abort(new Error('a stopped'));
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).message).toBe('b stopped');
  });

  it('starts aborted when a source already is', () => {
    const a = new AbortController();
    a.abort(new Error('early'));
    expect(linkSignals([new AbortController().signal, a.signal]).signal.reason).toEqual(new Error('early'));
  });

  it('stops following its sources once disposed', () => {
    const a = new AbortController();
    const linked = linkSignals([a.signal]);
    linked.dispose();
    a.abort();
    expect(linked.signal.aborted).toBe(false);
  });
});
