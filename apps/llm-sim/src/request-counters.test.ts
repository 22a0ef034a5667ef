import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestCount, RequestKind } from './request-counters.js';
import { ExtractionBatchSchema, ExtractionSchema, jsonSchemaFormat } from './test-support/memory-schemas.js';
import { startSim, type RunningSim } from './test-support/sim.js';

let sim: RunningSim;

beforeAll(async () => {
  sim = await startSim({ requestLogSize: 1 });
});
afterAll(() => sim.close());
beforeEach(() => fetch(`${sim.url}/_sim/reset`, { method: 'POST' }));

const stats = async () =>
  ((await (await fetch(`${sim.url}/_sim/stats`)).json()) as { requests: Partial<Record<RequestKind, RequestCount>> })
    .requests;

describe('GET /_sim/stats', () => {
  it('counts every answered request by kind, past what the request log keeps, until a reset', async () => {
    const client = sim.client();
    for (let i = 0; i < 3; i++)
      await client.chat.completions.create({
        model: 'sim-1',
        messages: [{ role: 'user', content: `[scenario:demo] hello ${i}` }],
      });
    await client.chat.completions.create({
      model: 'sim-1',
      messages: [
        {
          role: 'user',
          content: 'CURRENT FACTS (id: subject predicate object):\n(none)\n\nTURN:\n[seq 1] user: I live in Oslo',
        },
      ],
      response_format: jsonSchemaFormat('memory_extraction', ExtractionSchema),
    });
    await client.chat.completions.create({
      model: 'sim-1',
      messages: [
        {
          role: 'user',
          content:
            '### TURN 1\nMESSAGES:\n[seq 1] user: I live in Oslo\n\n### TURN 2\nMESSAGES:\n[seq 1] user: I live in Rome',
        },
      ],
      response_format: jsonSchemaFormat('memory_extraction_batch', ExtractionBatchSchema),
    });
    await client.embeddings.create({ model: 'sim-embed-1', input: ['one', 'two'] });
    await client.embeddings.create({ model: 'sim-embed-1', input: 'three' });

    const counted = await stats();
    expect(counted.chat?.requests).toBe(3);
    expect(counted.memory_extraction?.requests).toBe(1);
    expect(counted.memory_extraction?.bytes).toBeGreaterThan(counted.chat!.bytes / 3);
    expect(counted.memory_extraction_batch?.requests).toBe(1);
    expect(counted.embeddings).toMatchObject({ requests: 2, inputs: 3 });

    await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    expect(await stats()).toEqual({});
  });
});
