import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatencySampler } from './latency-distribution.js';
import type { RequestLogEntry } from './request-log.js';
import type { StreamClock } from './stream-pacing.js';
import { startSim, type RunningSim } from './test-support/sim.js';

/** A clock that never waits: each sleep is recorded and moves the time on by what was asked. */
function instantClock(): StreamClock & { waits: number[] } {
  let now = 0;
  const waits: number[] = [];
  return { waits, now: () => now, sleep: (ms) => (waits.push(ms), (now += ms), Promise.resolve(true)) };
}

let sim: RunningSim;
const clock = instantClock();

beforeAll(async () => {
  sim = await startSim({
    clock,
    scenarios: [
      { name: 'hello', steps: [{ content: 'hello there' }] },
      { name: 'own-latency', latency: { medianMs: 3, p99Ms: 9, seed: 5 }, steps: [{ content: 'mine' }] },
      { name: 'chatty', tokensPerSecond: 100, steps: [{ content: 'one two three four five six seven eight' }] },
      { name: 'step-paced', tokensPerSecond: 100, steps: [{ content: 'a b c', chunkDelayMs: 7 }] },
    ],
  });
});
afterAll(() => sim.close());

const setLatency = (body: unknown) =>
  fetch(`${sim.url}/_sim/latency`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const getLatency = async () => (await fetch(`${sim.url}/_sim/latency`)).json();
const reset = () => fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
const ask = (scenario = 'hello') =>
  sim
    .client()
    .chat.completions.create({ model: 'sim-1', messages: [{ role: 'user', content: `[scenario:${scenario}] hi` }] });
const requestLog = async () =>
  ((await (await fetch(`${sim.url}/_sim/requests`)).json()) as { requests: RequestLogEntry[] }).requests;

/** Streams one answer of `scenario`; returns its content chunks' texts and how many chunks came. */
async function stream(scenario: string): Promise<{ pieces: string[]; chunks: number }> {
  const answer = await sim.client().chat.completions.create({
    model: 'sim-1',
    stream: true,
    messages: [{ role: 'user', content: `[scenario:${scenario}] hi` }],
  });
  const pieces: string[] = [];
  let chunks = 0;
  for await (const chunk of answer) {
    chunks++;
    const content = chunk.choices[0]?.delta.content;
    if (content) pieces.push(content);
  }
  return { pieces, chunks };
}

describe('the latency setting', () => {
  it('delays every completion by at least the set latency, until reset', async () => {
    expect(await (await setLatency({ delayMs: 300 })).json()).toEqual({
      delayMs: 300,
      distribution: null,
      tokensPerSecond: null,
    });
    expect(await getLatency()).toEqual({ delayMs: 300, distribution: null, tokensPerSecond: null });
    const started = performance.now();
    expect((await ask()).choices[0]!.message.content).toBe('hello there');
    // A lower bound only: load can make it slower, never faster.
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    await reset();
    expect(await getLatency()).toEqual({ delayMs: 0, distribution: null, tokensPerSecond: null });
  });

  it('draws each call its delay from the log-normal, in the seeded sequence, again from the seed after a reset', async () => {
    const distribution = { medianMs: 2, p99Ms: 12, seed: 11 };
    expect(await (await setLatency({ distribution })).json()).toEqual({
      delayMs: 0,
      distribution,
      tokensPerSecond: null,
    });
    const expected = Array.from({ length: 6 }, createLatencySampler(distribution));
    const drawn = async () => {
      for (let i = 0; i < 3; i++) await ask();
      return (await requestLog()).slice(-3).map((entry) => [entry.drawnDelayMs, entry.delayMs]);
    };
    expect(await drawn()).toEqual(expected.slice(0, 3).map((ms) => [ms, ms]));
    expect(await drawn()).toEqual(expected.slice(3, 6).map((ms) => [ms, ms]));
    // A new PUT starts the sequence again (and adds its fixed part).
    await setLatency({ delayMs: 1, distribution });
    expect(await drawn()).toEqual(expected.slice(0, 3).map((ms) => [ms, ms + 1]));
    await reset();
    await ask();
    expect((await requestLog()).at(-1)).toMatchObject({ drawnDelayMs: null, delayMs: 0 });
  });

  it("uses a scenario's own distribution instead of the global one", async () => {
    await setLatency({ distribution: { medianMs: 1, p99Ms: 2, seed: 1 } });
    const expected = Array.from({ length: 2 }, createLatencySampler({ medianMs: 3, p99Ms: 9, seed: 5 }));
    await ask('own-latency');
    await ask('own-latency');
    expect((await requestLog()).slice(-2).map((entry) => entry.drawnDelayMs)).toEqual(expected);
    await reset();
  });

  it('streams at the set token rate: every chunk after the first scheduled 1000/rate ms after the one before', async () => {
    await setLatency({ tokensPerSecond: 40 });
    clock.waits.length = 0;
    const { pieces, chunks } = await stream('hello');
    expect(pieces.join('')).toBe('hello there');
    // role, two words, finish: the clock was asked to wait 25 ms before each chunk but the first.
    expect(chunks).toBe(4);
    expect(clock.waits).toEqual([25, 25, 25]);
    expect((await requestLog()).at(-1)?.chunkIntervalMs).toBe(25);
    await reset();
  });

  it("paces a scenario by its own tokensPerSecond, and a step's chunkDelayMs wins over both", async () => {
    await setLatency({ tokensPerSecond: 5 });
    clock.waits.length = 0;
    const chatty = await stream('chatty');
    expect(chatty.pieces.join('')).toBe('one two three four five six seven eight');
    expect(clock.waits).toEqual(Array.from({ length: chatty.chunks - 1 }, () => 10));
    clock.waits.length = 0;
    const stepPaced = await stream('step-paced');
    expect(clock.waits).toEqual(Array.from({ length: stepPaced.chunks - 1 }, () => 7));
    await reset();
  });

  it('refuses a negative or fractional latency, an empty setting, a bad distribution or rate', async () => {
    expect((await setLatency({ delayMs: -1 })).status).toBe(400);
    expect((await setLatency({ delayMs: 1.5 })).status).toBe(400);
    expect((await setLatency({})).status).toBe(400);
    const bad = await setLatency({ distribution: { medianMs: 100, p99Ms: 50 } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { message: expect.stringContaining('distribution.p99Ms') as string },
    });
    expect((await setLatency({ tokensPerSecond: 0 })).status).toBe(400);
    expect(await getLatency()).toEqual({ delayMs: 0, distribution: null, tokensPerSecond: null });
  });
});

describe('the latency at boot', () => {
  it('is what the options say, and what a reset returns to', async () => {
    const latency = { delayMs: 0, distribution: { medianMs: 1, p99Ms: 3, seed: 2 }, tokensPerSecond: 50 };
    const booted = await startSim({ latency, scenarios: [{ name: 'hello', steps: [{ content: 'hi' }] }] });
    try {
      const read = async () => (await fetch(`${booted.url}/_sim/latency`)).json();
      expect(await read()).toEqual(latency);
      await fetch(`${booted.url}/_sim/latency`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"delayMs":5}',
      });
      await fetch(`${booted.url}/_sim/reset`, { method: 'POST' });
      expect(await read()).toEqual(latency);
    } finally {
      await booted.close();
    }
  });
});
