// Plain tools that require approval, end to end: the model calls `archive_orders` (a tool whose
// runner publishes platform.requires_approval), the turn stops with a structured approval
// request and nothing runs; "yes" (or the approvals API) runs it once with the approved
// arguments, an edit runs it changed, "no" never runs it; the wait survives the orchestrator and
// the agent pool being killed; another tenant cannot decide it.
import { createLogger, createRedis, type Redis } from '@platform/service-kit';
import type { ManagedProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  bootPlatform,
  historyOf,
  startRunnerProcess,
  storedResultOf,
  waitForCatalog,
  type ApprovalJson,
  type SuitePlatform,
  type TurnJson,
} from './support.js';

const ARCHIVE = '[scenario:gated-archive] Archive the EMEA orders older than 90 days.';
const ASKED = { region: 'emea', olderThanDays: 90 };

let platform: SuitePlatform;
let runner: ManagedProcess;
let redis: Redis;

beforeAll(async () => {
  platform = await bootPlatform('gates', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
  runner = await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts');
  redis = createRedis({
    url: platform.redisUrl,
    name: 'gates-test',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
  await waitForCatalog(platform.apiUrl, ['archive_orders']);
});
afterAll(async () => {
  redis?.disconnect();
  await runner?.stop();
  await platform?.stop();
});

const send = (tenant: string, conversation: string, content: string) =>
  api<TurnJson>(platform, 'POST', `/v1/conversations/${conversation}/messages`, tenant, { content });
const approvals = async (tenant: string) =>
  (await api<{ approvals: ApprovalJson[] }>(platform, 'GET', '/v1/approvals', tenant)).body.approvals;
/** The arguments each run of the call ran with (none: it never ran). */
const runsOf = async (callId: string) =>
  (await redis.lrange(`archive:${callId}`, 0, -1)).map((r) => JSON.parse(r) as Record<string, unknown>);

/** The tool's result as the model quoted it in its answer (`Archive result: <json>`). */
const resultOf = (turn: TurnJson) => JSON.parse(turn.response.replace(/^Archive result: /, '')) as unknown;

/** The tool's result quoted in an answer, or undefined when the answer quotes none. */
const resultOfSafe = (turn: TurnJson): unknown =>
  turn.response?.startsWith('Archive result: ') ? resultOf(turn) : undefined;

/** The approved call's run is on record: counted in the turn, its call and real result stored after the user's message. */
async function expectStoredRun(
  tenant: string,
  conversation: string,
  turn: TurnJson,
  callId: string,
  result: unknown,
): Promise<void> {
  expect(turn.toolCalls.find((c) => c.callId === `${callId}:resumed`)).toMatchObject({
    name: 'archive_orders',
    status: 'success',
  });
  const stored = storedResultOf(await historyOf(platform, tenant, conversation), `${callId}:resumed`);
  expect(stored).toMatchObject({ role: 'tool', status: 'success' });
  expect(JSON.parse(stored!.content!)).toEqual(result);
}

/** Sends the archive request and checks that it waits for approval, with nothing run. */
async function askToArchive(tenant: string, conversation: string): Promise<{ callId: string; approval: ApprovalJson }> {
  // llm-sim derives call ids from the conversation's text: each test's own words keep them apart.
  const turn = await send(tenant, conversation, `${ARCHIVE} (${conversation})`);
  expect(turn.status).toBe(200);
  expect(turn.body).toMatchObject({
    status: 'waiting',
    pending: [{ agentName: 'archive_orders', waitingFor: 'approval' }],
  });
  const { callId, approval } = turn.body.pending[0]!;
  expect(approval).toMatchObject({
    agentName: 'archive_orders',
    details: ASKED,
    options: ['approve', 'edit', 'cancel'],
    allowModification: true,
  });
  expect(approval!.actionSummary).toContain('archive_orders');
  expect(turn.body.response).toContain('needs your approval');
  expect(await runsOf(callId)).toEqual([]);
  return { callId, approval: approval! };
}

describe('a plain tool that requires approval', () => {
  it('stops the turn for approval, runs nothing, and runs once with the asked arguments after "yes"', async () => {
    const { callId, approval } = await askToArchive('gate-yes', 'gate-1');
    expect((await approvals('gate-yes')).map((a) => a.approvalId)).toEqual([approval.approvalId]);
    const yes = await send('gate-yes', 'gate-1', 'yes');
    expect(yes.body).toMatchObject({ status: 'completed' });
    expect(resultOf(yes.body)).toEqual({ archived: 42, ...ASKED });
    expect(await runsOf(callId)).toEqual([ASKED]);
    expect(await approvals('gate-yes')).toEqual([]);
    await expectStoredRun('gate-yes', 'gate-1', yes.body, callId, { archived: 42, ...ASKED });
  });

  it('runs the edited call when the approvals API says "edit"', async () => {
    const { callId, approval } = await askToArchive('gate-edit', 'gate-2');
    const edited = await api<TurnJson>(platform, 'POST', `/v1/approvals/${approval.approvalId}`, 'gate-edit', {
      decision: 'edit',
      changes: { olderThanDays: 365 },
    });
    expect(edited.status).toBe(200);
    expect(resultOf(edited.body)).toEqual({ archived: 42, region: 'emea', olderThanDays: 365 });
    expect(await runsOf(callId)).toEqual([{ region: 'emea', olderThanDays: 365 }]);
    await expectStoredRun('gate-edit', 'gate-2', edited.body, callId, {
      archived: 42,
      region: 'emea',
      olderThanDays: 365,
    });
  });

  it('never runs it after "no", and the model learns the user cancelled', async () => {
    const { callId } = await askToArchive('gate-no', 'gate-3');
    const no = await send('gate-no', 'gate-3', 'no');
    expect(no.body.response).toContain('User cancelled this action.');
    expect(await runsOf(callId)).toEqual([]);
  });

  it('keeps waiting while the orchestrator and the agent pool are killed and restarted, then runs once', async () => {
    const { callId } = await askToArchive('gate-restart', 'gate-4');
    for (const app of ['orchestrator', 'agent-pool'] as const) await platform.kill(app);
    for (const app of ['agent-pool', 'orchestrator'] as const) await platform.start(app);
    await waitForCatalog(platform.apiUrl, ['archive_orders']);
    const yes = await send('gate-restart', 'gate-4', 'yes');
    expect(yes.body).toMatchObject({ status: 'completed' });
    expect(await runsOf(callId)).toEqual([ASKED]);
    await expectStoredRun('gate-restart', 'gate-4', yes.body, callId, { archived: 42, ...ASKED });
  });

  it('runs once when the same approval is decided twice at once (a double click), and neither answer says "waiting"', async () => {
    const { callId, approval } = await askToArchive('gate-twice', 'gate-6');
    const decide = () =>
      api<TurnJson & { error?: { code: string } }>(
        platform,
        'POST',
        `/v1/approvals/${approval.approvalId}`,
        'gate-twice',
        { decision: 'approve' },
      );
    const answers = await Promise.all([decide(), decide()]);
    expect(await runsOf(callId)).toEqual([ASKED]);
    for (const answer of answers) {
      // The loser either finds the approval gone (404) or runs after the winner and is told it was decided.
      if (answer.status === 404) expect(answer.body.error?.code).toBe('APPROVAL_NOT_FOUND');
      else expect(answer.body.status).toBe('completed');
    }
    expect(answers.filter((a) => a.status === 200 && resultOfSafe(a.body))).toHaveLength(1);
  });

  it('cannot be decided by another tenant (404), and stays waiting for its owner', async () => {
    const { callId, approval } = await askToArchive('gate-owner', 'gate-5');
    const attempt = await api(platform, 'POST', `/v1/approvals/${approval.approvalId}`, 'gate-intruder', {
      decision: 'approve',
    });
    expect(attempt.status).toBe(404);
    expect(attempt.body).toMatchObject({ error: { code: 'APPROVAL_NOT_FOUND' } });
    expect(await runsOf(callId)).toEqual([]);
    expect((await approvals('gate-owner')).map((a) => a.approvalId)).toEqual([approval.approvalId]);
  });
});
