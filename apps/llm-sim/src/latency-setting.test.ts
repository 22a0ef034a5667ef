import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from './test-support/sim.js';

let sim: RunningSim;

beforeAll(async () => {
  sim = await startSim({ scenarios: [{ name: 'hello', steps: [{ content: 'hello there' }] }] });
});
afterAll(() => sim.close());

const setLatency = (body: unknown) =>
  fetch(`${sim.url}/_sim/latency`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const ask = () => sim.client().chat.completions.create({ model: 'sim-1', messages: [{ role: 'user', content: '[scenario:hello] hi' }] });

describe('the latency setting', () => {
  it('delays every completion by at least the set latency, until reset', async () => {
    expect(await (await setLatency({ delayMs: 300 })).json()).toEqual({ delayMs: 300 });
    expect(await (await fetch(`${sim.url}/_sim/latency`)).json()).toEqual({ delayMs: 300 });
    const started = performance.now();
    expect((await ask()).choices[0]!.message.content).toBe('hello there');
    // A lower bound only: load can make it slower, never faster.
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    expect(await (await fetch(`${sim.url}/_sim/latency`)).json()).toEqual({ delayMs: 0 });
  });

  it('refuses a negative or fractional latency', async () => {
    expect((await setLatency({ delayMs: -1 })).status).toBe(400);
    expect((await setLatency({ delayMs: 1.5 })).status).toBe(400);
    expect((await setLatency({})).status).toBe(400);
  });
});
