import { connectNats, PlatformError, type NatsConnection } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import { defineTool, serveRunner, ToolClient, type ToolRunner } from '@platform/tool-sdk';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_QUEUE_GROUP, toolBatchSubject, toolSubject, type ToolBatchRequest } from '@platform/contracts';
import { executionOutcomeOf } from './executors/custom-executor.js';
import { runIdOfFire } from './executors/orchestrator-executor.js';
import { runResponse as response, ScriptedOrchestrator } from './test-support/scripted-orchestrator.js';
import { startReplicas, testLogger, type Replicas } from './test-support/trigger-harness.js';

const EXECUTOR = `digest_${randomBytes(4).toString('hex')}`;
const executorCalls: { callId: string; tenantId: string; input: Record<string, unknown> }[] = [];
const orchestrator = new ScriptedOrchestrator();

let nc: NatsConnection;
let runner: ToolRunner;
let r: Replicas;

beforeAll(async () => {
  nc = await connectNats({ servers: sharedInfra().natsUrl, name: 'trigger-executors-test', logger: testLogger });
  const digest = defineTool({
    name: EXECUTOR,
    description: 'A deterministic pipeline: counts the configured items.',
    input: z
      .object({
        fireId: z.string(),
        taskId: z.string(),
        kind: z.string(),
        config: z.object({ items: z.array(z.string()) }),
      })
      .passthrough(),
    sideEffect: 'external',
    handler: async (input, context) => {
      executorCalls.push({ callId: context.callId, tenantId: context.tenantId, input });
      return { counted: input.config.items.length };
    },
  });
  runner = await serveRunner({ nc, name: 'test-executors', version: '1.0.0', tools: [digest], logger: testLogger });
  const address = await orchestrator.start();
  r = await startReplicas(2, '2026-06-01T12:00:00Z', { ORCHESTRATOR_ADDRESS: address }, true);
});

afterAll(async () => {
  await r?.stop();
  await runner?.stop(100);
  await orchestrator.stop();
  await nc?.drain();
});

async function fireOnce(tenantId: string, spec: Record<string, unknown>) {
  const { task } = await r.client.rpc.createTask({
    tenantId,
    userId: 'u1',
    specJson: JSON.stringify(spec),
    requestId: '',
  });
  const { fire } = await r.client.rpc.runTaskNow({ tenantId, taskId: task!.taskId, requestId: '' });
  await r.round();
  return { taskId: task!.taskId, fireId: fire!.fireId };
}

async function fireOf(tenantId: string, taskId: string) {
  const { fires } = await r.client.rpc.listFires({ tenantId, taskId, pageSize: 10, pageToken: '' });
  return fires[0]!;
}

describe('custom executor over the tool protocol', () => {
  it('is called once with the fire id as call id and the task config, without a model', async () => {
    const { taskId, fireId } = await fireOnce('acme', {
      trigger: { type: 'schedule', cron: '0 0 1 1 *' },
      executor: EXECUTOR,
      action: { config: { items: ['a', 'b', 'c'] } },
    });
    const calls = executorCalls.filter((c) => c.input['taskId'] === taskId);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      callId: fireId,
      input: { fireId, kind: 'manual', config: { items: ['a', 'b', 'c'] } },
    });
    expect(await fireOf('acme', taskId)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      resultJson: JSON.stringify({ counted: 3 }),
    });
  });

  it('an executor nobody serves is retried with backoff, not lost', async () => {
    const { taskId } = await fireOnce('acme', {
      trigger: { type: 'schedule', cron: '0 0 1 1 *' },
      executor: `missing_${randomBytes(3).toString('hex')}`,
    });
    expect(await fireOf('acme', taskId)).toMatchObject({
      status: 'pending',
      attempts: 1,
      errorCode: 'RUNNER_UNAVAILABLE',
    });
  });
});

describe('custom executor batches', () => {
  it('fires that start together go to the runner as batches, each fire answered on its own, for its own tenant', async () => {
    const batches: number[] = [];
    let alone = 0;
    const spy = nc.subscribe(toolBatchSubject(EXECUTOR), {
      callback: (_err, msg) => void batches.push(msg.json<ToolBatchRequest>().calls.length),
    });
    const aloneSpy = nc.subscribe(toolSubject(EXECUTOR), { callback: () => void (alone += 1) });
    await nc.flush();
    const tenantOf = (i: number): string => (i % 2 === 0 ? 'batchco' : 'otherco');
    const tasks: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { task } = await r.client.rpc.createTask({
        tenantId: tenantOf(i),
        userId: 'u1',
        specJson: JSON.stringify({
          trigger: { type: 'schedule', cron: '0 0 1 1 *' },
          executor: EXECUTOR,
          action: { config: { items: Array.from({ length: i }, String) } },
        }),
        requestId: '',
      });
      tasks.push(task!.taskId);
    }
    const fireIds: string[] = [];
    for (const [i, taskId] of tasks.entries())
      fireIds.push((await r.client.rpc.runTaskNow({ tenantId: tenantOf(i), taskId, requestId: '' })).fire!.fireId);
    await r.round();
    spy.unsubscribe();
    aloneSpy.unsubscribe();
    // Two replicas share the six fires (SKIP LOCKED claims: 3 + 3, or 5 + 1 when one claims first);
    // each sends what it started together as one request: a batch, or the call alone when it
    // started a single fire. So the runner gets every fire once in at most two requests.
    expect(batches.reduce((a, b) => a + b, 0) + alone).toBe(6);
    expect(batches.length + alone).toBeLessThanOrEqual(2);
    expect(batches.length).toBeGreaterThanOrEqual(1);
    for (const [i, taskId] of tasks.entries()) {
      expect(executorCalls.filter((c) => c.callId === fireIds[i])).toEqual([
        expect.objectContaining({ tenantId: tenantOf(i) }),
      ]);
      expect(await fireOf(tenantOf(i), taskId)).toMatchObject({
        status: 'succeeded',
        attempts: 1,
        resultJson: JSON.stringify({ counted: i }),
      });
    }
  });

  it('an executor whose runner serves no batches gets its fires one by one', async () => {
    const name = `single_${randomBytes(3).toString('hex')}`;
    const answered: string[] = [];
    const plain = nc.subscribe(toolSubject(name), {
      queue: TOOL_QUEUE_GROUP,
      callback: (_err, msg) => {
        answered.push(msg.headers?.get('Platform-Call-Id') ?? '');
        msg.respond(JSON.stringify({ status: 'success', output: { ok: true } }));
      },
    });
    await nc.flush();
    const tasks: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { task } = await r.client.rpc.createTask({
        tenantId: 'batchco',
        userId: 'u1',
        specJson: JSON.stringify({ trigger: { type: 'schedule', cron: '0 0 1 1 *' }, executor: name }),
        requestId: '',
      });
      tasks.push(task!.taskId);
      await r.client.rpc.runTaskNow({ tenantId: 'batchco', taskId: task!.taskId, requestId: '' });
    }
    await r.round();
    plain.unsubscribe();
    expect(answered).toHaveLength(3);
    for (const taskId of tasks)
      expect(await fireOf('batchco', taskId)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('fires a runner at its limit answered busy in a batch wait as back-pressure and then run once each', async () => {
    const name = `narrow_${randomBytes(3).toString('hex')}`;
    const ran: string[] = [];
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const narrow = defineTool({
      name,
      description: 'Runs two at a time; calls without a fire id wait for the test.',
      input: z.object({ fireId: z.string().optional() }).passthrough(),
      handler: async ({ fireId }) => {
        if (fireId) ran.push(fireId);
        else await gate;
        return { ok: true };
      },
    });
    const own = await connectNats({ servers: sharedInfra().natsUrl, name: 'narrow-runner', logger: testLogger });
    const narrowRunner = await serveRunner({
      nc: own,
      name: 'narrow-runner',
      version: '1.0.0',
      tools: [narrow],
      logger: testLogger,
      maxConcurrency: 2,
    });
    try {
      // Two calls of someone else hold both of the runner's slots.
      const tools = new ToolClient({ nc, logger: testLogger });
      const holders = [1, 2].map((i) =>
        tools.call({
          toolName: name,
          callId: `holder-${i}`,
          tenantId: 'other',
          conversationId: 'c1',
          arguments: {},
          deadlineAt: Date.now() + 10_000,
        }),
      );
      await expect.poll(() => narrowRunner.inFlight).toBe(2);
      const tasks: string[] = [];
      for (let i = 0; i < 5; i++) {
        const { task } = await r.client.rpc.createTask({
          tenantId: 'batchco',
          userId: 'u1',
          specJson: JSON.stringify({ trigger: { type: 'schedule', cron: '0 0 1 1 *' }, executor: name }),
          requestId: '',
        });
        tasks.push(task!.taskId);
        await r.client.rpc.runTaskNow({ tenantId: 'batchco', taskId: task!.taskId, requestId: '' });
      }
      await r.round();
      const waiting = await Promise.all(tasks.map((taskId) => fireOf('batchco', taskId)));
      expect(waiting.map((f) => [f.status, f.attempts, f.errorCode])).toEqual(
        tasks.map(() => ['pending', 0, 'EXECUTOR_BUSY']),
      );
      expect(ran).toEqual([]);
      open();
      await Promise.all(holders);
      r.clock.advance(1_000);
      await r.round();
      for (const taskId of tasks)
        expect(await fireOf('batchco', taskId)).toMatchObject({ status: 'succeeded', attempts: 1 });
      expect(ran).toHaveLength(5);
      expect(new Set(ran).size).toBe(5);
    } finally {
      await narrowRunner.stop(100);
      await own.close();
    }
  });

  it("reads the tool gate's answers: a runner at its limit is back-pressure, a gate refusal is final, a missing runner is retried", () => {
    const result = (status: string, errorCode: string) => ({ status, outputJson: '', errorCode, errorMessage: 'x' });
    expect(executionOutcomeOf(result('failed', 'RUNNER_BUSY'))).toMatchObject({
      status: 'backpressure',
      code: 'EXECUTOR_BUSY',
      retryAfterMs: 1_000,
    });
    expect(executionOutcomeOf(result('failed', 'HANDLER_FAILED'))).toMatchObject({
      status: 'failed',
      retryable: false,
    });
    expect(executionOutcomeOf(result('failed', 'TOOL_CIRCUIT_OPEN'))).toMatchObject({
      status: 'failed',
      retryable: true,
    });
    expect(executionOutcomeOf(result('denied', 'NOT_AN_EXECUTOR'))).toMatchObject({
      status: 'failed',
      code: 'NOT_AN_EXECUTOR',
      retryable: false,
    });
    expect(executionOutcomeOf({ status: 'success', outputJson: '{"n":1}', errorCode: '', errorMessage: '' })).toEqual({
      status: 'succeeded',
      result: { n: 1 },
    });
  });
});

describe('orchestrator executor', () => {
  it('sends the instruction through HandleMessage in the task conversation; back-pressure is retried into the same run', async () => {
    orchestrator.answers = [
      () => {
        throw new PlatformError('resource_exhausted', 'RATE_LIMITED', 'slow down', { retryAfterSeconds: 3 });
      },
      () => response('completed', { response: 'You have 2 unread emails.' }),
    ];
    const { taskId, fireId } = await fireOnce('acme', {
      trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'Europe/Paris' },
      action: { instruction: 'Summarize my unread emails', profile: 'assistant' },
    });
    expect(await fireOf('acme', taskId)).toMatchObject({ status: 'pending', attempts: 0, errorCode: 'RATE_LIMITED' });
    r.clock.advance(3_000);
    await r.round();
    const calls = orchestrator.calls.filter((c) => c.conversationId === taskId);
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call).toMatchObject({
        tenantId: 'acme',
        conversationId: taskId,
        runId: runIdOfFire(fireId),
        requestId: fireId,
        attach: true,
        profile: 'assistant',
        timeZone: 'Europe/Paris',
      });
      expect(call.content).toMatch(/^\[Task run on request, .*\] Summarize my unread emails$/);
    }
    const fire = await fireOf('acme', taskId);
    expect(fire).toMatchObject({ status: 'succeeded', attempts: 1, runId: runIdOfFire(fireId) });
    expect(JSON.parse(fire.resultJson)).toMatchObject({ status: 'completed', response: 'You have 2 unread emails.' });
  });

  it('a run waiting for approval leaves the task PENDING_APPROVAL', async () => {
    const pending = [{ callId: 'call_1', agentName: 'send_email', waitingFor: 'approval', prompt: 'Send it?' }];
    orchestrator.answers = [
      () => response('waiting', { stopReason: 'waiting_for_user', pendingJson: JSON.stringify(pending) }),
    ];
    const { taskId } = await fireOnce('acme', {
      trigger: { type: 'schedule', cron: '0 8 * * *' },
      action: { instruction: 'Email the team' },
    });
    expect(await fireOf('acme', taskId)).toMatchObject({ status: 'waiting_approval' });
    expect((await r.client.rpc.getTask({ tenantId: 'acme', taskId })).task).toMatchObject({
      status: 'PENDING_APPROVAL',
      lastOutcome: 'waiting_approval',
    });
  });
});
