// A child run done by a remote A2A agent, against a real Postgres and a real A2A agent served by
// @a2a-js/sdk's server classes on loopback (the egress allowlist admits exactly 127.0.0.1): the
// task sent and followed to its answer, the token from the credential on every request, a task
// waiting for input answered by the next run of the conversation, a failure, a cancel that sends
// tasks/cancel, a hand-over that does not and a resume that follows the recorded task instead of
// sending again, and a URL the guard refuses.
import { compileEgressAllowlist, EgressGuard } from '@platform/egress';
import { createLogger } from '@platform/service-kit';
import { startA2aTestAgent, type A2aTestAgent } from '@platform/testing';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { claimedRun } from '../test-support/run-fixtures.js';
import { TurnAttempt } from '../turn/attempt.js';
import { RemoteAgentCall } from './remote-agent-call.js';
import { RemoteAgentClients } from './remote-agent-card.js';
import { RemoteAgentStore } from './remote-agent-store.js';
import { RemoteTasks } from './remote-tasks.js';

const logger = createLogger({ service: 'remote-agent-call-test', level: 'silent' });
const LOOPBACK = compileEgressAllowlist({ EGRESS_ALLOW_HOSTS: [], EGRESS_ALLOW_CIDRS: ['127.0.0.1/32'] });
let pool: pg.Pool;
let agent: A2aTestAgent;
let store: RemoteAgentStore;
let tasks: RemoteTasks;
const guards: EgressGuard[] = [];
const tokensAsked: Array<{ runId: string; service: string }> = [];

beforeAll(async () => {
  pool = await openJournalDatabase('remote_agent_call', logger);
  agent = await startA2aTestAgent();
  store = new RemoteAgentStore(pool);
  tasks = new RemoteTasks(pool);
  const inspect = new RemoteAgentClients(guard(), 5_000);
  const writer = { tenantId: 'acme', subject: 'alice', tier: 'default', maxRemoteAgents: 10 };
  await store.create(writer, 'forecaster', {
    url: agent.cardUrl,
    description: '',
    card: await inspect.inspect(agent.cardUrl),
  });
  await store.create(writer, 'secured', {
    url: agent.cardUrl,
    description: '',
    credentialService: 'partner',
    card: await inspect.inspect(agent.cardUrl),
  });
});
afterAll(async () => {
  await Promise.all(guards.map((g) => g.close()));
  await agent?.stop();
  await pool?.end();
});

function guard(allowlist = LOOPBACK): EgressGuard {
  const g = new EgressGuard({ allowlist });
  guards.push(g);
  return g;
}

function call(allowlist = LOOPBACK): RemoteAgentCall {
  return new RemoteAgentCall({
    store,
    tasks,
    clients: new RemoteAgentClients(guard(allowlist), 5_000),
    tokens: {
      tokenFor: (run, credential) => {
        tokensAsked.push({ runId: run.runId, service: credential.service });
        return Promise.resolve('tok-partner-123');
      },
    },
    tiers: { tiers: { off: { remoteAgents: 0 } }, defaultTier: 'default' },
    pollMs: 20,
    callTimeoutMs: 5_000,
    logger,
  });
}

let seq = 0;
function attemptOf(content: string, extra: { runId?: string; conversationId?: string; tier?: string } = {}) {
  seq += 1;
  const runId = extra.runId ?? `child_call_${seq}`;
  return new TurnAttempt(
    claimedRun('forecaster', content, {
      runId,
      conversationId: extra.conversationId ?? `delegation:${runId}`,
      tier: extra.tier ?? '',
    }),
  );
}

describe('a child run done by a remote A2A agent', () => {
  it('sends the task, follows it to completion and answers with its artifact, the task recorded with the run', async () => {
    const attempt = attemptOf('forecast for Paris');
    const result = await call().run(attempt, 'forecaster');
    expect(result).toMatchObject({ stopReason: 'final_answer', response: 'done: forecast for Paris' });
    expect(result.messages).toEqual([{ role: 'assistant', content: 'done: forecast for Paris' }]);
    expect(await tasks.ofRun('acme', attempt.run.runId)).toMatchObject({
      remoteAgent: 'forecaster',
      state: 'completed',
    });
  });

  it("sends the credential's token as a bearer token on every request, read for that run", async () => {
    const before = agent.authorizations.length;
    const attempt = attemptOf('forecast for Rome');
    expect((await call().run(attempt, 'secured')).response).toBe('done: forecast for Rome');
    const sent = agent.authorizations.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent)).toEqual(new Set(['Bearer tok-partner-123']));
    expect(tokensAsked).toContainEqual({ runId: attempt.run.runId, service: 'partner' });
  });

  it('waits when the remote asks for input, and the next run of the conversation answers the same task', async () => {
    const created = agent.tasksCreated();
    const first = attemptOf('ask: Which city?', { conversationId: 'delegation:asking' });
    const waiting = await call().run(first, 'forecaster');
    expect(waiting).toMatchObject({ stopReason: 'agent_waiting', response: 'Which city?' });
    expect(waiting.pendingAgents).toEqual([
      { callId: first.run.runId, agentName: 'remote:forecaster', waitingFor: 'input', prompt: 'Which city?' },
    ]);
    const answer = attemptOf('Lyon', { conversationId: 'delegation:asking' });
    const answered = await call().run(answer, 'forecaster');
    expect(answered).toMatchObject({ stopReason: 'final_answer', response: 'answered: Lyon' });
    expect(agent.tasksCreated()).toBe(created + 1);
    const [a, b] = [await tasks.ofRun('acme', first.run.runId), await tasks.ofRun('acme', answer.run.runId)];
    expect(b?.taskId).toBe(a?.taskId);
  });

  it('ends failed when the remote fails the task, saying what it said', async () => {
    const result = await call().run(attemptOf('fail: no forecasts on Sundays'), 'forecaster');
    expect(result.stopReason).toBe('model_error');
    expect(result.response).toBe("the remote agent 'forecaster' failed the task: no forecasts on Sundays");
  });

  it('cancels the remote task (tasks/cancel) when the run is cancelled, e.g. by its deadline', async () => {
    const attempt = attemptOf('hold until cancelled');
    const running = call().run(attempt, 'forecaster');
    const recorded = await until(() => tasks.ofRun('acme', attempt.run.runId));
    attempt.control.cancel('the delegation deadline');
    const result = await running;
    expect(result.stopReason).toBe('cancelled');
    expect(result.response).toContain('tasks/cancel sent');
    expect(agent.cancelled).toContain(recorded.taskId);
  });

  it('on a hand-over leaves the task running, and the resumed run follows it instead of sending again', async () => {
    const runId = 'child_resumed';
    const first = attemptOf('hold for the next replica', { runId });
    const running = call().run(first, 'forecaster');
    const recorded = await until(() => tasks.ofRun('acme', runId));
    const created = agent.tasksCreated();
    first.abandon('shutting down', { handOver: true });
    await running;
    expect(agent.cancelled).not.toContain(recorded.taskId);
    const second = new TurnAttempt({ ...first.run, attempts: 2 });
    const resumed = call().run(second, 'forecaster');
    agent.release();
    expect(await resumed).toMatchObject({ stopReason: 'final_answer', response: 'released' });
    expect(agent.tasksCreated()).toBe(created);
  });

  it("fails when the guard refuses the remote's address, and when the agent is gone or the tier has none", async () => {
    const none = compileEgressAllowlist({ EGRESS_ALLOW_HOSTS: [], EGRESS_ALLOW_CIDRS: [] });
    const refused = await call(none).run(attemptOf('forecast'), 'forecaster');
    expect(refused.stopReason).toBe('model_error');
    expect(refused.response).toContain('reaches a loopback address');
    expect((await call().run(attemptOf('forecast'), 'nobody')).response).toBe(
      "the remote agent 'nobody' does not exist (any more)",
    );
    expect((await call().run(attemptOf('forecast', { tier: 'off' }), 'forecaster')).response).toBe(
      "remote agents are not available to tier 'off'",
    );
  });
});

async function until<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('never happened');
}
