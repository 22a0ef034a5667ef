import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_LEDGER_TURNS, ModelTimeLedger, type TurnModelTime } from './model-time-ledger.js';
import { startSim, type RunningSim } from './test-support/sim.js';

let sim: RunningSim;

beforeAll(async () => {
  sim = await startSim();
});
afterAll(() => sim.close());
beforeEach(() => fetch(`${sim.url}/_sim/reset`, { method: 'POST' }));

const modelTime = async () =>
  ((await (await fetch(`${sim.url}/_sim/model-time`)).json()) as { turns: Record<string, TurnModelTime> }).turns;

const latency = (setting: object) =>
  fetch(`${sim.url}/_sim/latency`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(setting),
  });

describe('GET /_sim/model-time', () => {
  it("files each tagged turn's completions, their delay and paced stream included, until a reset", async () => {
    await latency({ delayMs: 60, tokensPerSecond: 100 });
    const client = sim.client();
    const messages = [{ role: 'user' as const, content: '[scenario:demo] [turn:t-1] hello' }];
    await client.chat.completions.create({ model: 'sim-1', messages });
    const stream = await client.chat.completions.create({ model: 'sim-1', messages, stream: true });
    let chunks = 0;
    for await (const _chunk of stream) chunks += 1;
    await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:demo] untagged' }],
    });
    const turns = await modelTime();
    expect(Object.keys(turns)).toEqual(['t-1']);
    expect(turns['t-1']!.calls).toBe(2);
    // Two delays of 60 ms, and the streamed answer's chunks paced at 100 a second.
    expect(turns['t-1']!.ms).toBeGreaterThanOrEqual(2 * 60 + (chunks - 3) * 10);
    await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    expect(await modelTime()).toEqual({});
  });
});

describe('ModelTimeLedger', () => {
  it('reads the tag of the last user message only', () => {
    expect(
      ModelTimeLedger.tagOf({
        messages: [
          { role: 'user', content: '[turn:old] first' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'next [turn:new]' },
        ],
      }),
    ).toBe('new');
    expect(ModelTimeLedger.tagOf({ messages: [{ role: 'user', content: 'no tag' }] })).toBeUndefined();
  });

  it('keeps at most MAX_LEDGER_TURNS turns, dropping the oldest', () => {
    const ledger = new ModelTimeLedger();
    for (let i = 0; i <= MAX_LEDGER_TURNS; i++) ledger.add(`t${i}`, 1);
    const turns = ledger.snapshot();
    expect(Object.keys(turns)).toHaveLength(MAX_LEDGER_TURNS);
    expect(turns['t0']).toBeUndefined();
    expect(turns[`t${MAX_LEDGER_TURNS}`]).toEqual({ calls: 1, ms: 1 });
  });
});
