import { orchestratorV1 } from '@platform/proto';
import { connectNats, errors, GrpcServer, PlatformError, unaryHandler, type NatsConnection } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import { defineTool, serveRunner, type ToolRunner } from '@platform/tool-sdk';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runIdOfFire } from './executors/orchestrator-executor.js';
import { startReplicas, testLogger, type Replicas } from './test-support/trigger-harness.js';

const EXECUTOR = `digest_${randomBytes(4).toString('hex')}`;
const executorCalls: { callId: string; input: Record<string, unknown> }[] = [];
const orchestratorCalls: orchestratorV1.HandleMessageRequest[] = [];
/** What the orchestrator stand-in answers, call by call (at the gRPC wire, as the real one does). */
let orchestratorAnswers: (() => orchestratorV1.HandleMessageResponse)[] = [];

let nc: NatsConnection;
let runner: ToolRunner;
let orchestrator: GrpcServer;
let r: Replicas;

function response(status: string, extra: Partial<orchestratorV1.HandleMessageResponse> = {}): orchestratorV1.HandleMessageResponse {
  return { runId: '', status, stopReason: 'final_answer', response: 'Done.', turns: 1, toolCalls: [], durationMs: 3, usage: undefined, pendingJson: '[]', ...extra };
}

beforeAll(async () => {
  nc = await connectNats({ servers: sharedInfra().natsUrl, name: 'trigger-executors-test', logger: testLogger });
  const digest = defineTool({
    name: EXECUTOR,
    description: 'A deterministic pipeline: counts the configured items.',
    input: z.object({ fireId: z.string(), taskId: z.string(), kind: z.string(), config: z.object({ items: z.array(z.string()) }) }).passthrough(),
    sideEffect: 'external',
    handler: async (input, context) => {
      executorCalls.push({ callId: context.callId, input });
      return { counted: input.config.items.length };
    },
  });
  runner = await serveRunner({ nc, name: 'test-executors', version: '1.0.0', tools: [digest], logger: testLogger });
  orchestrator = new GrpcServer({ host: '127.0.0.1', port: 0, logger: testLogger });
  orchestrator.addService('orchestrator.v1.OrchestratorService', orchestratorV1.OrchestratorServiceService, {
    handleMessage: unaryHandler<orchestratorV1.HandleMessageRequest, orchestratorV1.HandleMessageResponse>(testLogger, 'HandleMessage', async (request) => {
      orchestratorCalls.push(request);
      const next = orchestratorAnswers.shift();
      if (!next) throw errors.internal('UNSCRIPTED', 'no answer scripted');
      return { ...next(), runId: request.runId };
    }),
  });
  const port = await orchestrator.start();
  r = await startReplicas(2, '2026-06-01T12:00:00Z', { ORCHESTRATOR_ADDRESS: `127.0.0.1:${port}` }, true);
});

afterAll(async () => {
  await r?.stop();
  await runner?.stop(100);
  await orchestrator?.stop(100);
  await nc?.drain();
});

async function fireOnce(tenantId: string, spec: Record<string, unknown>) {
  const { task } = await r.client.rpc.createTask({ tenantId, userId: 'u1', specJson: JSON.stringify(spec), requestId: '' });
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
    const { taskId, fireId } = await fireOnce('acme', { trigger: { type: 'schedule', cron: '0 0 1 1 *' }, executor: EXECUTOR, action: { config: { items: ['a', 'b', 'c'] } } });
    const calls = executorCalls.filter((c) => c.input['taskId'] === taskId);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ callId: fireId, input: { fireId, kind: 'manual', config: { items: ['a', 'b', 'c'] } } });
    expect(await fireOf('acme', taskId)).toMatchObject({ status: 'succeeded', attempts: 1, resultJson: JSON.stringify({ counted: 3 }) });
  });

  it('an executor nobody serves is retried with backoff, not lost', async () => {
    const { taskId } = await fireOnce('acme', { trigger: { type: 'schedule', cron: '0 0 1 1 *' }, executor: `missing_${randomBytes(3).toString('hex')}` });
    expect(await fireOf('acme', taskId)).toMatchObject({ status: 'pending', attempts: 1, errorCode: 'RUNNER_UNAVAILABLE' });
  });
});

describe('orchestrator executor', () => {
  it('sends the instruction through HandleMessage in the task conversation; back-pressure is retried into the same run', async () => {
    orchestratorAnswers = [
      () => {
        throw new PlatformError('resource_exhausted', 'RATE_LIMITED', 'slow down', { retryAfterSeconds: 3 });
      },
      () => response('completed', { response: 'You have 2 unread emails.' }),
    ];
    const { taskId, fireId } = await fireOnce('acme', { trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'Europe/Paris' }, action: { instruction: 'Summarize my unread emails', profile: 'assistant' } });
    expect(await fireOf('acme', taskId)).toMatchObject({ status: 'pending', attempts: 0, errorCode: 'RATE_LIMITED' });
    r.clock.advance(3_000);
    await r.round();
    const calls = orchestratorCalls.filter((c) => c.conversationId === taskId);
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call).toMatchObject({ tenantId: 'acme', conversationId: taskId, runId: runIdOfFire(fireId), requestId: fireId, attach: true, profile: 'assistant', timeZone: 'Europe/Paris' });
      expect(call.content).toMatch(/^\[Task run on request, .*\] Summarize my unread emails$/);
    }
    const fire = await fireOf('acme', taskId);
    expect(fire).toMatchObject({ status: 'succeeded', attempts: 1, runId: runIdOfFire(fireId) });
    expect(JSON.parse(fire.resultJson)).toMatchObject({ status: 'completed', response: 'You have 2 unread emails.' });
  });

  it('a run waiting for approval leaves the task PENDING_APPROVAL', async () => {
    const pending = [{ callId: 'call_1', agentName: 'send_email', waitingFor: 'approval', prompt: 'Send it?' }];
    orchestratorAnswers = [() => response('waiting', { stopReason: 'waiting_for_user', pendingJson: JSON.stringify(pending) })];
    const { taskId } = await fireOnce('acme', { trigger: { type: 'schedule', cron: '0 8 * * *' }, action: { instruction: 'Email the team' } });
    expect(await fireOf('acme', taskId)).toMatchObject({ status: 'waiting_approval' });
    expect((await r.client.rpc.getTask({ tenantId: 'acme', taskId })).task).toMatchObject({ status: 'PENDING_APPROVAL', lastOutcome: 'waiting_approval' });
  });
});
