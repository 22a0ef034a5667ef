// Decisions the platform asks the user for itself (StartAgent with user_decision, e.g. a committee
// with strategy "user"): held as approval requests nobody runs, decided once, expired at their
// time. Against a real pool server and NATS.
import { createLogger, type NatsConnection } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentPoolServer, type AgentPoolServer } from './server.js';
import {
  connectTestNats,
  poolClient,
  rejection,
  startRequest,
  testPoolConfig,
  unique,
  type PoolClient,
} from './test-support/pool-client.js';

const logger = createLogger({ service: 'user-decision-test', level: 'silent' });
const NAME = 'ask_committee_estimates';

let nc: NatsConnection;
let server: AgentPoolServer;
let client: PoolClient;

beforeAll(async () => {
  nc = await connectTestNats(sharedInfra().natsUrl);
  server = await startAgentPoolServer(
    await testPoolConfig('agent_pool_decisions', { SWEEP_INTERVAL_MS: '60000' }),
    logger,
  );
  client = await poolClient(server.port);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await nc?.drain();
});

const DETAILS = {
  kind: 'committee_decision',
  options: [
    { role: 'a', answer: '100' },
    { role: 'b', answer: '120' },
  ],
};

function ask(tenantId: string, callId: string, expiresInMs = 60_000) {
  return client.rpc.startAgent(
    startRequest(
      tenantId,
      NAME,
      callId,
      { question: 'How many chairs?' },
      {
        userDecision: {
          actionSummary: 'Choose an answer',
          detailsJson: JSON.stringify(DETAILS),
          prompt: 'a: 100; b: 120',
          expiresInMs,
        },
      },
    ),
  );
}

function decide(tenantId: string, approvalId: string, decision: string, changes?: Record<string, unknown>, reply = '') {
  return client.rpc.resolveApproval({
    tenantId,
    approvalId,
    decision,
    changesJson: changes ? JSON.stringify(changes) : '',
    reply,
  });
}

describe('a decision the platform asks the user for', () => {
  it('waits as an approval request (edit or cancel) listed with the pending entries, and nothing runs', async () => {
    const tenant = unique('t');
    const { entry } = await ask(tenant, 'call_d1');
    expect(entry).toMatchObject({
      kind: 'user_decision',
      status: 'waiting_for_approval',
      agentName: NAME,
      prompt: 'a: 100; b: 120',
    });
    expect(entry!.approval).toMatchObject({
      actionSummary: 'Choose an answer',
      options: ['edit', 'cancel'],
      allowModification: true,
      timeoutMinutes: 1,
    });
    expect(JSON.parse(entry!.approval!.detailsJson)).toEqual(DETAILS);
    expect(entry!.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 30_000);
    const { entries } = await client.rpc.listPending({ tenantId: tenant, conversationId: '' });
    expect(entries.map((e) => e.approval?.approvalId)).toEqual([entry!.approval!.approvalId]);
    // The same call again (a resumed run) finds the same request.
    const again = await ask(tenant, 'call_d1');
    expect(again).toMatchObject({ duplicate: true, entry: { entryId: entry!.entryId } });
  });

  it('records one decision as its result; a second decision is refused and changes nothing', async () => {
    const tenant = unique('t');
    const { entry } = await ask(tenant, 'call_d2');
    const approvalId = entry!.approval!.approvalId;
    const decided = await decide(tenant, approvalId, 'edit', { choice: 'b' });
    expect(decided.entry).toMatchObject({ status: 'completed' });
    expect(JSON.parse(decided.entry!.resultJson)).toEqual({ decision: 'edit', changes: { choice: 'b' }, reply: null });
    expect(await rejection(decide(tenant, approvalId, 'cancel'))).toMatchObject({
      kind: 'failed_precondition',
      code: 'AGENT_NOT_WAITING',
    });
    expect(
      JSON.parse((await client.rpc.getAgent({ tenantId: tenant, entryId: entry!.entryId })).entry!.resultJson),
    ).toMatchObject({ changes: { choice: 'b' } });
    expect((await client.rpc.listPending({ tenantId: tenant, conversationId: '' })).entries).toEqual([]);
  });

  it('takes a reply from the conversation, or a cancellation; refuses a decision it does not offer and another tenant', async () => {
    const tenant = unique('t');
    const replied = (await ask(tenant, 'call_d3')).entry!;
    expect(await rejection(decide(unique('other'), replied.approval!.approvalId, 'cancel'))).toMatchObject({
      kind: 'not_found',
      code: 'APPROVAL_NOT_FOUND',
    });
    expect(await rejection(decide(tenant, replied.approval!.approvalId, 'approve'))).toMatchObject({
      kind: 'invalid_argument',
      code: 'DECISION_NOT_OFFERED',
    });
    const byReply = await decide(tenant, replied.approval!.approvalId, '', undefined, 'go with b');
    expect(JSON.parse(byReply.entry!.resultJson)).toEqual({ decision: null, changes: {}, reply: 'go with b' });
    const cancelled = (await ask(tenant, 'call_d4')).entry!;
    expect((await decide(tenant, cancelled.approval!.approvalId, 'cancel')).entry).toMatchObject({
      status: 'cancelled',
    });
  });

  it('expires at its time: the sweeper expires it and a late decision is refused', async () => {
    const tenant = unique('t');
    const { entry } = await ask(tenant, 'call_d5', 50);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const swept = await server.sweepOnce();
    expect(swept.expired.map((r) => r.entry_id)).toContain(entry!.entryId);
    expect(await rejection(decide(tenant, entry!.approval!.approvalId, 'edit', { choice: 'a' }))).toMatchObject({
      code: 'AGENT_NOT_WAITING',
    });
  });

  it('refuses a malformed request at the edge', async () => {
    const tenant = unique('t');
    const bad = (
      userDecision: { actionSummary: string; detailsJson: string; prompt: string; expiresInMs: number },
      approvalGate = false,
    ) => client.rpc.startAgent({ ...startRequest(tenant, NAME, unique('call'), {}, { userDecision }), approvalGate });
    const ok = { actionSummary: 'Choose', detailsJson: '{}', prompt: 'p', expiresInMs: 1000 };
    expect(await rejection(bad({ ...ok, expiresInMs: 0 }))).toMatchObject({ code: 'INVALID_USER_DECISION' });
    expect(await rejection(bad({ ...ok, actionSummary: ' ' }))).toMatchObject({ code: 'INVALID_USER_DECISION' });
    expect(await rejection(bad({ ...ok, detailsJson: '[1]' }))).toMatchObject({ code: 'INVALID_USER_DECISION' });
    expect(await rejection(bad(ok, true))).toMatchObject({ code: 'INVALID_USER_DECISION' });
  });
});
