import { describe, expect, it } from 'vitest';
import { intervalForRate, paceChunks, type StreamClock } from './stream-pacing.js';

/** A clock that jumps ahead by what was asked (plus `lateBy`, a timer firing late), and records every wait. */
function fakeClock(lateBy = 0): StreamClock & { waits: number[] } {
  let now = 1_000;
  const waits: number[] = [];
  return {
    waits,
    now: () => now,
    sleep: (ms) => {
      waits.push(ms);
      now += ms + lateBy;
      return Promise.resolve(true);
    },
  };
}

describe('paceChunks', () => {
  it('emits chunk i at i times the interval after the first', async () => {
    const clock = fakeClock();
    const emittedAt: number[] = [];
    const done = await paceChunks(6, { intervalMs: intervalForRate(50), clock }, new AbortController().signal, () => {
      emittedAt.push(clock.now() - 1_000);
      return true;
    });
    expect(done).toBe(true);
    expect(emittedAt).toEqual([0, 20, 40, 60, 80, 100]);
  });

  it('keeps the rate when timers fire late: each wait is shortened by the lateness before it', async () => {
    const clock = fakeClock(3);
    const emittedAt: number[] = [];
    await paceChunks(5, { intervalMs: 10, clock }, new AbortController().signal, () => {
      emittedAt.push(clock.now() - 1_000);
      return true;
    });
    // Sleeping 10 ms after each write would put chunk 4 at 52 ms; on the schedule it is at 43.
    expect(clock.waits).toEqual([10, 7, 7, 7]);
    expect(emittedAt).toEqual([0, 13, 23, 33, 43]);
  });

  it('does not wait when unpaced, and stops when the signal aborts or emit says so', async () => {
    const unpaced = fakeClock();
    expect(await paceChunks(4, { intervalMs: 0, clock: unpaced }, new AbortController().signal, () => true)).toBe(true);
    expect(unpaced.waits).toEqual([]);

    const controller = new AbortController();
    let emitted = 0;
    const aborted = await paceChunks(10, { intervalMs: 5, clock: fakeClock() }, controller.signal, () => {
      if (++emitted === 3) controller.abort();
      return true;
    });
    expect([aborted, emitted]).toEqual([false, 3]);
    expect(
      await paceChunks(10, { intervalMs: 5, clock: fakeClock() }, new AbortController().signal, (i) => i < 2),
    ).toBe(false);
  });
});
