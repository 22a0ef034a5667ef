// Who decides an approval, through the real services (docs/access.md#approvals): a gated call
// waits for approval in alice's run; bob, another member of the tenant, is refused with
// 403 FORBIDDEN_ROLE and nothing runs; a viewer is refused; alice decides, and the tool runs once;
// a tenant admin may decide a user's approval too. Needs the run to record its end user (the
// orchestrator stores HandleMessage's `subject`, GetRun returns it: s22/orch-agents).
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

async function askToArchive(who: Caller, conversation: string): Promise<ApprovalJson> {
  const turn = await api<TurnJson>(platform, 'POST', `/v1/conversations/${conversation}/messages`, who, {
    content: `${ARCHIVE} (${conversation})`,
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
  it("refuses another member and a viewer the user's approval; the user decides it", async () => {
    const approval = await askToArchive(ALICE, 'deciders-1');
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
  });

  it("lets a tenant admin decide a user's approval", async () => {
    const approval = await askToArchive(ALICE, 'deciders-2');
    const byAdmin = await decide({ tenant: TENANT, subject: 'carol-admin', roles: ['admin'] }, approval.approvalId);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.status).toBe('completed');
  });
});
