import { describe, expect, it } from 'vitest';
import { closedLoop, closedLoopFor } from './closed-loop.js';

describe('closedLoop', () => {
  it('runs exactly the given number of turns, never more at once than the concurrency', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    const result = await closedLoop(
      async (_worker, index) => {
        seen.push(index);
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight -= 1;
      },
      4,
      25,
    );
    expect(result.latenciesMs).toHaveLength(25);
    expect(result.errors).toBe(0);
    expect(most).toBe(4);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('counts failed turns apart, keeping the first error, and no latency for them', async () => {
    const result = await closedLoop(
      async (_worker, index) => {
        if (index % 5 === 0) throw new Error(`turn ${index} failed`);
      },
      2,
      20,
    );
    expect(result.errors).toBe(4);
    expect(result.latenciesMs).toHaveLength(16);
    expect(result.firstError).toMatch(/^turn \d+ failed$/);
  });
});

describe('closedLoopFor', () => {
  it('keeps starting turns until the time is up, then lets the started ones finish', async () => {
    let finished = 0;
    const result = await closedLoopFor(
      async () => {
        await new Promise((r) => setTimeout(r, 5));
        finished += 1;
      },
      3,
      60,
    );
    expect(result.latenciesMs.length).toBe(finished);
    expect(finished).toBeGreaterThanOrEqual(3);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(60);
  });
});
