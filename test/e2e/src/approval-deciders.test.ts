// Who sees and decides an approval, through the real services (docs/access.md#approvals): a gated
// call waits for approval in alice's run; bob, another member of the tenant, neither lists nor finds
// it while alice's conversation is private (404), and once she shares it he sees it but is refused
// with 403 FORBIDDEN_ROLE and nothing runs; a viewer is refused; alice decides, the tool runs once
// and the approval names her as its decider; a tenant admin may decide a user's approval too. A reply in the conversation meets the same rule
// in the orchestrator: when the agent names developers as its approvers, the user's own "yes"
// decides nothing and the approval keeps waiting for a developer.
import type { ManagedProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  bootPlatform,
  startRunnerProcess,
  waitForCatalog,
  type ApprovalJson,
  type Caller,
  type SuitePlatform,
  type TurnJson,
} from './support.js';

const TENANT = 'deciders';
const ALICE: Caller = { tenant: TENANT, subject: 'alice' };
const BOB: Caller = { tenant: TENANT, subject: 'bob' };
const ARCHIVE = '[scenario:gated-archive] Archive the EMEA orders older than 90 days.';

let platform: SuitePlatform;
let runner: ManagedProcess;

beforeAll(async () => {
  platform = await bootPlatform('deciders', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
  runner = await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts');
  await waitForCatalog(platform.apiUrl, ['archive_orders']);
});
afterAll(async () => {
  await runner?.stop();
  await platform?.stop();
});

async function askToArchive(who: Caller, conversation: string, agent?: string): Promise<ApprovalJson> {
  const turn = await api<TurnJson>(platform, 'POST', `/v1/conversations/${conversation}/messages`, who, {
    content: `${ARCHIVE} (${conversation})`,
    ...(agent ? { agent } : {}),
  });
  expect(turn.body).toMatchObject({ status: 'waiting', pending: [{ waitingFor: 'approval' }] });
  return turn.body.pending[0]!.approval!;
}

const decide = (who: Caller, approvalId: string) =>
  api<TurnJson & { error?: { code: string; details?: Record<string, unknown> } }>(
    platform,
    'POST',
    `/v1/approvals/${approvalId}`,
    who,
    { decision: 'approve' },
  );

describe('who decides an approval', () => {
  it("hides a private conversation's approval from another member: not listed, 404 to read and to decide", async () => {
    const approval = await askToArchive(ALICE, 'deciders-0');
    const listed = (who: Caller) =>
      api<{ approvals: ApprovalJson[] }>(platform, 'GET', '/v1/approvals', who).then((r) =>
        r.body.approvals.map((a) => a.approvalId),
      );
    expect(await listed(BOB)).not.toContain(approval.approvalId);
    expect(await listed(ALICE)).toContain(approval.approvalId);
    expect(await listed({ tenant: TENANT, subject: 'carol-admin', roles: ['admin'] })).toContain(approval.approvalId);
    expect(await api(platform, 'GET', `/v1/approvals/${approval.approvalId}`, BOB)).toMatchObject({
      status: 404,
      body: { error: { code: 'APPROVAL_NOT_FOUND' } },
    });
    expect(await decide(BOB, approval.approvalId)).toMatchObject({
      status: 404,
      body: { error: { code: 'APPROVAL_NOT_FOUND' } },
    });
    expect(await api(platform, 'GET', `/v1/approvals/${approval.approvalId}`, ALICE)).toMatchObject({
      status: 200,
      body: { approvalId: approval.approvalId, status: 'waiting_for_approval', decidedBy: null },
    });
  });

  it("refuses another member and a viewer the user's approval once shared; the user decides it, and is named", async () => {
    const approval = await askToArchive(ALICE, 'deciders-1');
    const shared = await api(platform, 'PATCH', '/v1/conversations/deciders-1', ALICE, { shared: true });
    expect(shared.status).toBe(200);
    const byBob = await decide(BOB, approval.approvalId);
    expect(byBob.status).toBe(403);
    expect(byBob.body.error).toMatchObject({
      code: 'FORBIDDEN_ROLE',
      details: { requiredRole: 'admin', reason: 'not_the_runs_user' },
    });
    const byViewer = await decide({ tenant: TENANT, subject: 'alice', roles: ['viewer'] }, approval.approvalId);
    expect(byViewer.body.error).toMatchObject({ code: 'FORBIDDEN_ROLE', details: { requiredRole: 'member' } });
    const byAlice = await decide(ALICE, approval.approvalId);
    expect(byAlice.status).toBe(200);
    expect(byAlice.body.status).toBe('completed');
    const decided = await api<ApprovalJson & { decidedBy: string | null }>(
      platform,
      'GET',
      `/v1/approvals/${approval.approvalId}`,
      BOB,
    );
    expect(decided).toMatchObject({ status: 200, body: { approvalId: approval.approvalId, decidedBy: 'alice' } });
  });

  it('takes a reply sent with any multitask policy as the decision: a waiting run is not in flight', async () => {
    for (const multitask of ['reject', 'rollback']) {
      const conversation = `deciders-${multitask}`;
      const approval = await askToArchive(ALICE, conversation);
      // Nothing is in flight: the run waits for this very reply, whatever the policy says.
      const reply = await api<TurnJson>(platform, 'POST', `/v1/conversations/${conversation}/messages`, ALICE, {
        content: 'yes',
        multitask,
      });
      expect(reply.status).toBe(200);
      expect(reply.body.status).toBe('completed');
      expect(await api(platform, 'GET', `/v1/approvals/${approval.approvalId}`, ALICE)).toMatchObject({
        body: { decidedBy: 'alice' },
      });
    }
  });

  it("lets a tenant admin decide a user's approval", async () => {
    const approval = await askToArchive(ALICE, 'deciders-2');
    const byAdmin = await decide({ tenant: TENANT, subject: 'carol-admin', roles: ['admin'] }, approval.approvalId);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.status).toBe('completed');
  });

  it("keeps the approval waiting when the user's own reply would decide what the agent leaves to developers", async () => {
    const developer: Caller = { tenant: TENANT, subject: 'dave-dev', roles: ['developer'] };
    const created = await api(platform, 'POST', '/v1/agents', developer, {
      name: 'deciders-ops-bot',
      instructions: 'You archive orders when asked.',
      tools: ['archive_orders'],
      approverRoles: ['developer'],
    });
    expect(created.status).toBe(201);
    const approval = await askToArchive(ALICE, 'deciders-3', 'deciders-ops-bot');
    const reply = await api<TurnJson>(platform, 'POST', '/v1/conversations/deciders-3/messages', ALICE, {
      content: 'yes',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'waiting',
      pending: [{ approval: { approvalId: approval.approvalId } }],
    });
    expect(reply.body.response).toContain('decided by developer');
    const waiting = await api<{ approvals: ApprovalJson[] }>(platform, 'GET', '/v1/approvals', ALICE);
    expect(waiting.body.approvals.map((a) => a.approvalId)).toContain(approval.approvalId);
    const byDeveloper = await decide(developer, approval.approvalId);
    expect(byDeveloper.status).toBe(200);
    expect(byDeveloper.body.status).toBe('completed');
  });
});
