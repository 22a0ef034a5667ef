import { jetstream } from '@nats-io/jetstream';
import {
  AGENT_POOL_EVENT_SUBJECT_PREFIX,
  AGENT_POOL_EVENTS_STREAM,
  agentPoolEventSubject,
  triggeredRunSubject,
  type AgentExpiredEvent,
  type TriggeredRunFinished,
} from '@platform/contracts';
import { connectNats, ensureStream, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResponse, ScriptedOrchestrator } from './test-support/scripted-orchestrator.js';
import { startReplicas, testLogger, type Replicas } from './test-support/trigger-harness.js';

const HOUR = 3_600_000;
let nats: NatsServerHandle;
let nc: NatsConnection;
const orchestrator = new ScriptedOrchestrator();
let r: Replicas;

beforeAll(async () => {
  // Its own NATS server: the expiry consumer is one durable per server.
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'trigger-approvals-test', logger: testLogger });
  await ensureStream(nc, {
    name: AGENT_POOL_EVENTS_STREAM,
    subjects: [`${AGENT_POOL_EVENT_SUBJECT_PREFIX}.>`],
    maxAgeMs: HOUR,
  });
  r = await startReplicas(
    1,
    '2026-06-01T07:30:00Z',
    { NATS_URL: nats.url, ORCHESTRATOR_ADDRESS: await orchestrator.start(nats.url) },
    true,
  );
});

afterAll(async () => {
  await r?.stop();
  await orchestrator.stop();
  await nc?.drain();
  await nats?.stop();
});

const waiting = () =>
  runResponse('waiting', {
    stopReason: 'agent_waiting',
    pendingJson: JSON.stringify([
      { callId: 'call_1', agentName: 'send_email', waitingFor: 'approval', prompt: 'Send the report to the team?' },
    ]),
  });

function expired(tenantId: string, taskId: string): AgentExpiredEvent {
  return {
    type: 'agent.expired',
    eventId: `exp-${taskId}`,
    entryId: `entry-${taskId}`,
    tenantId,
    conversationId: taskId,
    callId: 'call_1',
    agentName: 'send_email',
    reason: 'approval_timeout',
    message: 'The approval request expired; the email was not sent.',
    expiredAt: new Date().toISOString(),
  };
}

async function task(tenantId: string, taskId: string) {
  return (await r.client.rpc.getTask({ tenantId, taskId })).task!;
}

/** The tenant's notification feed (of one user when given), as the api's stream reads it. */
async function feed(tenantId: string, afterSeq = 0, userId = '') {
  const { notifications } = await r.client.rpc.listNotifications({ tenantId, userId, afterSeq, limit: 0 });
  return notifications.map((n) => ({
    seq: n.seq,
    type: n.type,
    taskId: n.taskId,
    body: JSON.parse(n.bodyJson) as Record<string, unknown>,
  }));
}

/** What the orchestrator publishes when the run continuing a triggered run after the user's decision ends. */
function resumedRunEnd(
  tenantId: string,
  taskId: string,
  originRunId: string,
  status = 'completed',
): TriggeredRunFinished {
  return {
    tenantId,
    taskId,
    triggerType: 'approval',
    runId: `run_${taskId.slice(5)}-resumed`,
    conversationId: taskId,
    status,
    stopReason: status === 'completed' ? 'final_answer' : 'cancelled',
    response: 'Sent the report to the team.',
    turns: 2,
    approvalId: 'apr_1',
    originRunId,
    finishedAt: new Date().toISOString(),
  };
}

describe('approvals in triggered runs', () => {
  it('a run stopped for approval leaves the task PENDING_APPROVAL; on expiry the fire fails APPROVAL_EXPIRED and a one-time task is EXPIRED', async () => {
    orchestrator.answers = [waiting];
    const { task: created } = await r.client.rpc.createTask({
      tenantId: 'acme',
      userId: 'alice',
      requestId: '',
      specJson: JSON.stringify({
        trigger: { type: 'schedule', at: '2026-06-01T08:00:00Z' },
        action: { instruction: 'Email the weekly report to the team' },
      }),
    });
    const taskId = created!.taskId;
    r.clock.set('2026-06-01T08:00:00Z');
    await r.round();
    expect(await task('acme', taskId)).toMatchObject({ status: 'PENDING_APPROVAL', lastOutcome: 'waiting_approval' });

    await jetstream(nc).publish(agentPoolEventSubject('acme', 'expired'), JSON.stringify(expired('acme', taskId)));
    await expect.poll(async () => (await task('acme', taskId)).status, { timeout: 10_000 }).toBe('EXPIRED');
    const { fires } = await r.client.rpc.listFires({ tenantId: 'acme', taskId, pageSize: 10, pageToken: '' });
    expect(fires).toMatchObject([
      {
        status: 'failed',
        errorCode: 'APPROVAL_EXPIRED',
        errorMessage: 'The approval request expired; the email was not sent.',
      },
    ]);
    // The user is told on the stream (whatever the task's output): asked first, then the expiry.
    expect((await feed('acme')).filter((n) => n.taskId === taskId).map((n) => [n.type, n.body['taskStatus']])).toEqual([
      ['fire.approval_requested', 'PENDING_APPROVAL'],
      ['fire.approval_expired', 'EXPIRED'],
    ]);
  });

  it('a recurring task keeps its schedule while an approval waits, and a later completed run makes it ACTIVE again', async () => {
    r.clock.set('2026-06-01T08:30:00Z');
    const { task: created } = await r.client.rpc.createTask({
      tenantId: 'acme',
      userId: 'alice',
      requestId: '',
      specJson: JSON.stringify({
        trigger: { type: 'schedule', cron: '0 9 * * *' },
        action: { instruction: 'Send the daily digest' },
      }),
    });
    const taskId = created!.taskId;
    orchestrator.answers = [waiting, () => runResponse('completed')];
    r.clock.set('2026-06-01T09:00:00Z');
    await r.round();
    expect(await task('acme', taskId)).toMatchObject({ status: 'PENDING_APPROVAL' });
    r.clock.set('2026-06-02T09:00:00Z');
    await r.round();
    expect(await task('acme', taskId)).toMatchObject({ status: 'ACTIVE', lastOutcome: 'succeeded' });
    expect(orchestrator.calls.filter((c) => c.conversationId === taskId)).toHaveLength(2);
  });

  it('an expiry of an agent in an ordinary conversation changes no task', async () => {
    await jetstream(nc).publish(agentPoolEventSubject('acme', 'expired'), JSON.stringify(expired('acme', 'trip-42')));
    const { tasks } = await r.client.rpc.listTasks({ tenantId: 'acme', pageSize: 10, pageToken: '' });
    expect(tasks.map((t) => t.status).sort()).toEqual(['ACTIVE', 'EXPIRED']);
  });

  it('the HandleMessage of a fire says it comes from the task (source trigger, task id, trigger type)', async () => {
    const call = orchestrator.calls.at(-1)!;
    expect(call.source).toEqual({
      kind: 'trigger',
      taskId: call.conversationId,
      triggerType: 'schedule',
      originRunId: '',
    });
  });

  it('approved, the resumed run ends: the waiting fire gets its result, a one-time task is COMPLETED, and the user is told on the stream', async () => {
    r.clock.set('2026-06-03T07:00:00Z');
    orchestrator.answers = [waiting];
    const { task: created } = await r.client.rpc.createTask({
      tenantId: 'umbrella',
      userId: 'bob',
      requestId: '',
      specJson: JSON.stringify({
        trigger: { type: 'schedule', at: '2026-06-03T08:00:00Z' },
        action: { instruction: 'Email the weekly report' },
        output: { channel: 'sse' },
      }),
    });
    const taskId = created!.taskId;
    r.clock.set('2026-06-03T08:00:00Z');
    await r.round();
    const [waitingFire] = (await r.client.rpc.listFires({ tenantId: 'umbrella', taskId, pageSize: 10, pageToken: '' }))
      .fires;
    expect(waitingFire).toMatchObject({ status: 'waiting_approval' });
    const requested = await feed('umbrella');
    expect(requested).toMatchObject([
      {
        type: 'fire.approval_requested',
        taskId,
        body: {
          status: 'waiting_approval',
          taskStatus: 'PENDING_APPROVAL',
          userId: 'bob',
          result: { pending: [{ prompt: 'Send the report to the team?' }] },
        },
      },
    ]);

    // The end of some other run of the task (not the one that asked) changes nothing.
    await jetstream(nc).publish(
      triggeredRunSubject('umbrella'),
      JSON.stringify(resumedRunEnd('umbrella', taskId, 'run_someone-else')),
    );
    await jetstream(nc).publish(
      triggeredRunSubject('umbrella'),
      JSON.stringify(resumedRunEnd('umbrella', taskId, waitingFire!.runId)),
    );
    await expect.poll(async () => (await task('umbrella', taskId)).status, { timeout: 10_000 }).toBe('COMPLETED');
    const [settled] = (await r.client.rpc.listFires({ tenantId: 'umbrella', taskId, pageSize: 10, pageToken: '' }))
      .fires;
    expect(settled).toMatchObject({ fireId: waitingFire!.fireId, status: 'succeeded', runId: waitingFire!.runId });
    expect(JSON.parse(settled!.resultJson)).toMatchObject({
      status: 'completed',
      response: 'Sent the report to the team.',
      resumedRunId: expect.stringContaining('-resumed'),
    });
    const after = await feed('umbrella', requested[0]!.seq);
    expect(after).toMatchObject([
      {
        type: 'fire.finished',
        taskId,
        body: { status: 'succeeded', taskStatus: 'COMPLETED', result: { response: 'Sent the report to the team.' } },
      },
    ]);
    // Delivered again (a redelivery, a second orchestrator), nothing more happens.
    await jetstream(nc).publish(
      triggeredRunSubject('umbrella'),
      JSON.stringify({ ...resumedRunEnd('umbrella', taskId, waitingFire!.runId), runId: 'run_again' }),
    );
    await r.client.rpc.listTasks({ tenantId: 'umbrella', pageSize: 1, pageToken: '' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await feed('umbrella', requested[0]!.seq)).toHaveLength(1);
  });

  it("the feed is the tenant's own: another tenant, or another user of the tenant, reads none of it", async () => {
    const mine = await feed('umbrella');
    expect(mine.length).toBeGreaterThan(0);
    expect(await feed('acme-other')).toEqual([]);
    expect(await feed('umbrella', 0, 'mallory')).toEqual([]);
    expect((await feed('umbrella', 0, 'bob')).map((n) => n.seq)).toEqual(mine.map((n) => n.seq));
    // Expiry notices of acme's tasks went to acme's feed only.
    expect((await feed('acme')).map((n) => n.type)).toContain('fire.approval_expired');
    expect((await feed('umbrella')).map((n) => n.type)).not.toContain('fire.approval_expired');
  });

  it('a recurring task whose approved run ends is ACTIVE again, its fire failed when the run was cancelled', async () => {
    // Only this task fires in this test.
    for (const t of (await r.client.rpc.listTasks({ tenantId: 'acme', pageSize: 10, pageToken: '' })).tasks.filter(
      (t) => t.status === 'ACTIVE',
    ))
      await r.client.rpc.pauseTask({ tenantId: 'acme', taskId: t.taskId });
    r.clock.set('2026-06-04T08:30:00Z');
    orchestrator.answers = [waiting];
    const { task: created } = await r.client.rpc.createTask({
      tenantId: 'umbrella',
      userId: 'bob',
      requestId: '',
      specJson: JSON.stringify({
        trigger: { type: 'schedule', cron: '0 9 * * *' },
        action: { instruction: 'Send the digest' },
      }),
    });
    const taskId = created!.taskId;
    r.clock.set('2026-06-04T09:00:00Z');
    await r.round();
    const [fire] = (await r.client.rpc.listFires({ tenantId: 'umbrella', taskId, pageSize: 10, pageToken: '' })).fires;
    await jetstream(nc).publish(
      triggeredRunSubject('umbrella'),
      JSON.stringify(resumedRunEnd('umbrella', taskId, fire!.runId, 'cancelled')),
    );
    await expect.poll(async () => (await task('umbrella', taskId)).status, { timeout: 10_000 }).toBe('ACTIVE');
    const [settled] = (await r.client.rpc.listFires({ tenantId: 'umbrella', taskId, pageSize: 10, pageToken: '' }))
      .fires;
    expect(settled).toMatchObject({ status: 'failed', errorCode: 'RUN_CANCELLED' });
    // Output "none": the result is not on the stream; the approval request was (the user had to be asked).
    expect((await feed('umbrella')).filter((n) => n.taskId === taskId).map((n) => n.type)).toEqual([
      'fire.approval_requested',
    ]);
  });
});
