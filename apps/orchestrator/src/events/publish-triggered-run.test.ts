import { jetstreamManager } from '@nats-io/jetstream';
import type { LoopResult } from '@platform/agent-loop';
import { TRIGGERED_RUN_SUBJECT_PREFIX, TRIGGERED_RUNS_STREAM, TriggeredRunFinished } from '@platform/contracts';
import { connectNats, createLogger, ensureStream, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimedRun } from '../journal/run-records.js';
import { TriggeredRunPublisher } from './publish-triggered-run.js';

const logger = createLogger({ service: 'publish-triggered-run-test', level: 'silent' });
const TASK = 'task_00000000-0000-4000-8000-000000000001';
let nats: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'publish-triggered-run-test', logger });
});

afterAll(async () => {
  await nc.drain();
  await nats.stop();
});

function run(runId: string, source?: ClaimedRun['source']): ClaimedRun {
  return {
    runId,
    tenantId: 'acme.eu',
    conversationId: TASK,
    profile: 'default',
    content: 'Approved: send the report',
    tier: '',
    stream: false,
    timeZone: '',
    approval: { approvalId: 'apr_1', decision: 'approve' },
    ...(source ? { source } : {}),
    kind: 'message',
    agentsMayWait: true,
    epoch: 1,
    input: null,
    attempts: 1,
    cancelRequested: false,
    createdAt: new Date(),
  };
}

const result = { stopReason: 'final_answer', response: 'Sent.', turns: 2 } as LoopResult;

describe('TriggeredRunPublisher', () => {
  it('never fails the turn when the trigger service has not created its stream', async () => {
    const publisher = new TriggeredRunPublisher(nc, 2_000, logger);
    await expect(
      publisher.publish(
        run('run_1', { kind: 'trigger', taskId: TASK, triggerType: 'approval', originRunId: 'run_fire_1' }),
        result,
      ),
    ).resolves.toBeUndefined();
  });

  it('publishes the end of a triggered run once per run id, and nothing for a user message', async () => {
    await ensureStream(nc, {
      name: TRIGGERED_RUNS_STREAM,
      subjects: [`${TRIGGERED_RUN_SUBJECT_PREFIX}.>`],
      maxAgeMs: 60_000,
    });
    const publisher = new TriggeredRunPublisher(nc, 2_000, logger);
    const triggered = run('run_2', {
      kind: 'trigger',
      taskId: TASK,
      triggerType: 'approval',
      originRunId: 'run_fire_1',
    });
    await publisher.publish(triggered, result);
    await publisher.publish(triggered, result); // a resumed attempt publishes again: deduped
    await publisher.publish(run('run_3'), result);
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info(TRIGGERED_RUNS_STREAM)).state.messages).toBe(1);
    const stored = TriggeredRunFinished.parse(
      (await jsm.streams.getMessage(TRIGGERED_RUNS_STREAM, { seq: 1 }))?.json(),
    );
    expect(stored).toMatchObject({
      tenantId: 'acme.eu',
      taskId: TASK,
      triggerType: 'approval',
      runId: 'run_2',
      originRunId: 'run_fire_1',
      approvalId: 'apr_1',
      status: 'completed',
      response: 'Sent.',
    });
  });
});
