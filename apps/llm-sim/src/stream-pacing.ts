import { performance } from 'node:perf_hooks';
import { abortableDelay } from './delay.js';

/** Time as the stream writer sees it: injectable, so tests check the schedule without waiting for it. */
export interface StreamClock {
  /** Milliseconds from an arbitrary origin, never going back. */
  now(): number;
  /** Waits `ms`; resolves false if `signal` aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<boolean>;
}

/** The wall clock. */
export const REAL_CLOCK: StreamClock = { now: () => performance.now(), sleep: abortableDelay };

/** How a stream's chunks are spaced: chunk `i` is due `i * intervalMs` after the first. */
export interface StreamPace {
  intervalMs: number;
  clock: StreamClock;
}

/** The spacing of chunks for a rate of `tokensPerSecond` content pieces (a piece stands for a token). */
export function intervalForRate(tokensPerSecond: number): number {
  return 1000 / tokensPerSecond;
}

/**
 * Calls `emit(i)` for i = 0 … count-1, each once it is due: on a fixed schedule from the first
 * chunk, not a sleep after each write, so a slow write or a late timer does not push every later
 * chunk back and the stream keeps its rate. `emit` returning false stops early. Resolves false if
 * `signal` aborted or `emit` stopped, true once every chunk went out.
 */
export async function paceChunks(
  count: number,
  pace: StreamPace,
  signal: AbortSignal,
  emit: (index: number) => boolean | Promise<boolean>,
): Promise<boolean> {
  const start = pace.clock.now();
  for (let i = 0; i < count; i++) {
    if (i > 0 && pace.intervalMs > 0) {
      const wait = start + i * pace.intervalMs - pace.clock.now();
      if (!(await pace.clock.sleep(Math.max(0, wait), signal))) return false;
    }
    if (signal.aborted) return false;
    if (!(await emit(i))) return false;
  }
  return true;
}
