import { connectNats, type NatsConnection } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import { defineTool, serveRunner, type ToolRunner } from '@platform/tool-sdk';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rejection, startReplicas, testLogger, type Replicas } from './test-support/trigger-harness.js';

const TOOL = `flight_price_${randomBytes(4).toString('hex')}`;
/** The price the tool reports next, per route. */
const prices = new Map<string, number | string>();
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
  const spec = {
    trigger: {
      type: 'condition',
      tool: TOOL,
      arguments: { route },
      intervalSeconds: 60,
      condition: 'result.price < 300',
      cooldownSeconds,
    },
    executor: 'noop_exec',
  };
  const { task } = await r.client.rpc.createTask({
    tenantId: 'acme',
    userId: 'u',
    specJson: JSON.stringify(spec),
    requestId: '',
  });
  return task!.taskId;
}

/** One poll interval later, every replica polls at once, then fires run. */
async function pollAt(route: string, price: number | string): Promise<void> {
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
    expect(calls[0]).toMatchObject({
      kind: 'condition',
      payload: { tool: TOOL, condition: 'result.price < 300', result: { route: 'SFO-NRT', price: 280 } },
    });
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

  it("a condition that fails on the tool's answer keeps its last value and is the task's lastError", async () => {
    const taskId = await conditionTask('CDG-HND');
    await pollAt('CDG-HND', 'cheap');
    const { task } = await r.client.rpc.getTask({ tenantId: 'acme', taskId });
    expect(task?.lastError).toMatchObject({ code: 'FILTER_EVALUATION_FAILED' });
    expect(task?.lastError?.message).toBeTruthy();
    expect(r.executor.callsOf(taskId)).toHaveLength(0);
    await pollAt('CDG-HND', 250);
    expect(r.executor.callsOf(taskId)).toHaveLength(1);
  });

  it('refuses a malformed condition at creation', async () => {
    const spec = {
      trigger: { type: 'condition', tool: TOOL, intervalSeconds: 60, condition: 'result.price <' },
      executor: 'noop_exec',
    };
    const error = await rejection(
      r.client.rpc.createTask({ tenantId: 'acme', userId: 'u', specJson: JSON.stringify(spec), requestId: '' }),
    );
    expect(error.message).toMatch(/^trigger\.condition: not a valid condition expression/);
  });

  it("asks the orchestrator's tool gate for every poll, as the task's profile, with the poll id as call id", async () => {
    const spec = {
      trigger: {
        type: 'condition',
        tool: TOOL,
        arguments: { route: 'CDG-JFK' },
        intervalSeconds: 60,
        condition: 'result.price < 300',
      },
      executor: 'noop_exec',
      action: { profile: 'fares' },
    };
    const { task } = await r.client.rpc.createTask({
      tenantId: 'acme',
      userId: 'u',
      specJson: JSON.stringify(spec),
      requestId: '',
    });
    await pollAt('CDG-JFK', 200);
    // The check at creation (a dry run, before the task has an id), then the poll itself.
    expect(
      r.gate.requests.filter((q) => q.dryRun && q.toolName === TOOL && q.profile === 'fares').map((q) => q.caller),
    ).toEqual(['condition']);
    const polls = r.gate.requests.filter((q) => q.conversationId === task!.taskId);
    expect(polls.map((q) => [q.caller, q.dryRun, q.profile, q.toolName])).toEqual([
      ['condition', false, 'fares', TOOL],
    ]);
    expect(polls[0]!.callId).toMatch(new RegExp(`^poll:${task!.taskId}:`));
    expect(JSON.parse(polls[0]!.argumentsJson)).toEqual({ route: 'CDG-JFK' });
  });

  it("refuses at creation a condition tool or an executor the gate refuses, naming the field and the gate's reason", async () => {
    r.gate.refused.set('archive_orders', { kind: 'failed_precondition', code: 'APPROVAL_REQUIRED' });
    r.gate.refused.set('not_an_executor', { kind: 'failed_precondition', code: 'NOT_AN_EXECUTOR' });
    try {
      const gated = {
        trigger: { type: 'condition', tool: 'archive_orders', intervalSeconds: 60, condition: 'result.archived > 0' },
        executor: 'noop_exec',
      };
      const condition = await rejection(
        r.client.rpc.createTask({ tenantId: 'acme', userId: 'u', specJson: JSON.stringify(gated), requestId: '' }),
      );
      expect(condition).toMatchObject({
        kind: 'invalid_argument',
        code: 'CONDITION_TOOL_NOT_ALLOWED',
        details: { reason: 'APPROVAL_REQUIRED' },
      });
      expect(condition.message).toMatch(/^trigger\.tool: /);
      const executor = await rejection(
        r.client.rpc.createTask({
          tenantId: 'acme',
          userId: 'u',
          specJson: JSON.stringify({ trigger: { type: 'schedule', cron: '0 8 * * *' }, executor: 'not_an_executor' }),
          requestId: '',
        }),
      );
      expect(executor).toMatchObject({
        kind: 'invalid_argument',
        code: 'EXECUTOR_NOT_ALLOWED',
        details: { reason: 'NOT_AN_EXECUTOR' },
      });
      const { tasks } = await r.client.rpc.listTasks({ tenantId: 'acme', pageSize: 500, pageToken: '' });
      expect(
        tasks.filter((t) => t.specJson.includes('not_an_executor') || t.specJson.includes('archive_orders')),
      ).toEqual([]);
    } finally {
      r.gate.refused.clear();
    }
  });
});
