import { jetstream } from '@nats-io/jetstream';
import { AGENT_POOL_EVENT_SUBJECT_PREFIX, AGENT_POOL_EVENTS_STREAM, agentPoolEventSubject, type AgentExpiredEvent } from '@platform/contracts';
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
  await ensureStream(nc, { name: AGENT_POOL_EVENTS_STREAM, subjects: [`${AGENT_POOL_EVENT_SUBJECT_PREFIX}.>`], maxAgeMs: HOUR });
  r = await startReplicas(1, '2026-06-01T07:30:00Z', { NATS_URL: nats.url, ORCHESTRATOR_ADDRESS: await orchestrator.start() }, true);
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
    pendingJson: JSON.stringify([{ callId: 'call_1', agentName: 'send_email', waitingFor: 'approval', prompt: 'Send the report to the team?' }]),
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

describe('approvals in triggered runs', () => {
  it('a run stopped for approval leaves the task PENDING_APPROVAL; on expiry the fire fails APPROVAL_EXPIRED and a one-time task is EXPIRED', async () => {
    orchestrator.answers = [waiting];
    const { task: created } = await r.client.rpc.createTask({
      tenantId: 'acme',
      userId: 'alice',
      requestId: '',
      specJson: JSON.stringify({ trigger: { type: 'schedule', at: '2026-06-01T08:00:00Z' }, action: { instruction: 'Email the weekly report to the team' } }),
    });
    const taskId = created!.taskId;
    r.clock.set('2026-06-01T08:00:00Z');
    await r.round();
    expect(await task('acme', taskId)).toMatchObject({ status: 'PENDING_APPROVAL', lastOutcome: 'waiting_approval' });

    await jetstream(nc).publish(agentPoolEventSubject('acme', 'expired'), JSON.stringify(expired('acme', taskId)));
    await expect.poll(async () => (await task('acme', taskId)).status, { timeout: 10_000 }).toBe('EXPIRED');
    const { fires } = await r.client.rpc.listFires({ tenantId: 'acme', taskId, pageSize: 10, pageToken: '' });
    expect(fires).toMatchObject([{ status: 'failed', errorCode: 'APPROVAL_EXPIRED', errorMessage: 'The approval request expired; the email was not sent.' }]);
  });

  it('a recurring task keeps its schedule while an approval waits, and a later completed run makes it ACTIVE again', async () => {
    r.clock.set('2026-06-01T08:30:00Z');
    const { task: created } = await r.client.rpc.createTask({
      tenantId: 'acme',
      userId: 'alice',
      requestId: '',
      specJson: JSON.stringify({ trigger: { type: 'schedule', cron: '0 9 * * *' }, action: { instruction: 'Send the daily digest' } }),
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
});
