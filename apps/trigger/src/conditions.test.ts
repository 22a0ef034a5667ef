import { connectNats, type NatsConnection } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import { defineTool, serveRunner, type ToolRunner } from '@platform/tool-sdk';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rejection, startReplicas, testLogger, type Replicas } from './test-support/trigger-harness.js';

const TOOL = `flight_price_${randomBytes(4).toString('hex')}`;
/** The price the tool reports next, per route. */
const prices = new Map<string, number | 'fail'>();
let nc: NatsConnection;
let runner: ToolRunner;
let r: Replicas;

beforeAll(async () => {
  nc = await connectNats({ servers: sharedInfra().natsUrl, name: 'trigger-conditions-test', logger: testLogger });
  const quote = defineTool({
    name: TOOL,
    description: 'The current fare of a route.',
    input: z.object({ route: z.string() }),
    handler: async ({ route }) => {
      const price = prices.get(route);
      if (price === 'fail') throw new Error('fare service down');
      return { route, price };
    },
  });
  runner = await serveRunner({ nc, name: 'fares', version: '1.0.0', tools: [quote], logger: testLogger });
  r = await startReplicas(2, '2026-06-01T12:00:00Z');
});

afterAll(async () => {
  await r?.stop();
  await runner?.stop(100);
  await nc?.drain();
});

async function conditionTask(route: string, cooldownSeconds = 0): Promise<string> {
  const spec = { trigger: { type: 'condition', tool: TOOL, arguments: { route }, intervalSeconds: 60, condition: 'result.price < 300', cooldownSeconds }, executor: 'noop_exec' };
  const { task } = await r.client.rpc.createTask({ tenantId: 'acme', userId: 'u', specJson: JSON.stringify(spec), requestId: '' });
  return task!.taskId;
}

/** One poll interval later, every replica polls at once, then fires run. */
async function pollAt(route: string, price: number | 'fail'): Promise<void> {
  prices.set(route, price);
  await Promise.all(r.servers.map((s) => s.conditions.pollDue()));
  await r.round();
  r.clock.advance(60_000);
}

describe('condition triggers', () => {
  it('fire once per crossing (edge-triggered), polled once per interval across replicas', async () => {
    const taskId = await conditionTask('SFO-NRT');
    for (const price of [350, 280, 270, 260, 320, 290, 'fail', 250, 310] as const) await pollAt('SFO-NRT', price);
    const calls = r.executor.callsOf(taskId);
    expect(calls.map((c) => (c.payload as { result: { price: number } }).result.price)).toEqual([280, 290]);
    expect(calls[0]).toMatchObject({ kind: 'condition', payload: { tool: TOOL, condition: 'result.price < 300', result: { route: 'SFO-NRT', price: 280 } } });
  });

  it('a cool-down suppresses a new crossing that comes too soon', async () => {
    const taskId = await conditionTask('JFK-LHR', 3 * 60);
    for (const price of [280, 320, 290, 320, 320, 290] as const) await pollAt('JFK-LHR', price);
    // Fired at minute 0; the crossing at minute 2 is within 3 minutes; the one at minute 5 fires.
    expect(r.executor.callsOf(taskId)).toHaveLength(2);
  });

  it('a paused condition task is not polled', async () => {
    const taskId = await conditionTask('LAX-SYD');
    await r.client.rpc.pauseTask({ tenantId: 'acme', taskId });
    await pollAt('LAX-SYD', 100);
    expect(r.executor.callsOf(taskId)).toHaveLength(0);
    await r.client.rpc.resumeTask({ tenantId: 'acme', taskId });
    await pollAt('LAX-SYD', 100);
    expect(r.executor.callsOf(taskId)).toHaveLength(1);
  });

  it('refuses a malformed condition at creation', async () => {
    const spec = { trigger: { type: 'condition', tool: TOOL, intervalSeconds: 60, condition: 'result.price <' }, executor: 'noop_exec' };
    const error = await rejection(r.client.rpc.createTask({ tenantId: 'acme', userId: 'u', specJson: JSON.stringify(spec), requestId: '' }));
    expect(error.message).toMatch(/^trigger\.condition: not a valid condition expression/);
  });
});
