// Teams of agents: a profile's roles appear to the model as delegation tools; each call runs as a
// durable child run (its own conversation, journal and transcript) whose answer is the call's one
// result. Loops and depth are refused, deadlines and cancellation reach the child, and a crash of
// the orchestrator resumes parent and children without running a finished child again.
import { createLogger, createRedis, type Redis } from '@platform/service-kit';
import type { ManagedProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMessageStream, readSse, runEventsOf, watchRun } from './sse.js';
import { api, bootPlatform, simRequests, startRunnerProcess, type SuitePlatform, waitFor, waitForCatalog, FAST_RECOVERY, writeProfilesFile } from './support.js';

interface Turn {
  runId: string;
  status: string;
  response: string;
  toolCalls: Array<{ callId: string; name: string; status: string; errorCode?: string }>;
}

interface Child {
  runId: string;
  conversationId: string;
  role: string;
  callId: string;
  status: string;
}

interface RunJson {
  runId: string;
  conversationId: string;
  status: string;
  parentRunId: string | null;
  parentCallId: string | null;
  chain: string[];
  depth: number;
  rootConversationId: string;
  children: Child[];
  result: { response: string; toolCalls: Array<{ name: string; status: string; errorCode?: string }> };
}

const TENANT = 'team-tenant';
let platform: SuitePlatform;
let runner: ManagedProcess;
let gatedRunner: ManagedProcess;
let redis: Redis;
let profiles: { file: string; remove: () => Promise<void> };
const logger = createLogger({ service: 'teams-test', level: 'silent' });

beforeAll(async () => {
  profiles = await writeProfilesFile('teams', {
      defaultProfile: 'lead',
      profiles: [
        {
          name: 'lead',
          systemPrompt: 'You lead a small team.',
          tools: ['calculator'],
          delegates: [
            { role: 'researcher', description: 'finds facts and reports them.' },
            { role: 'booker', description: 'books meeting slots.' },
            { role: 'archivist', description: 'archives old orders.' },
          ],
          committees: [{ name: 'estimates', description: 'estimates a number.', roles: ['estimator-a', 'estimator-b', 'estimator-c'], strategy: 'majority', tolerance: 0.05 }],
        },
        { name: 'estimator-a', systemPrompt: 'You estimate. [persona-scenario:estimator-a]', tools: [] },
        { name: 'estimator-b', systemPrompt: 'You estimate. [persona-scenario:estimator-b]', tools: [] },
        { name: 'estimator-c', systemPrompt: 'You estimate. [persona-scenario:estimator-c]', tools: [] },
        { name: 'archivist', systemPrompt: 'You archive orders.', tools: ['archive_orders'] },
        {
          name: 'researcher',
          systemPrompt: 'You research.',
          tools: ['current_time'],
          delegates: [
            { role: 'lead', description: 'the team lead.' },
            { role: 'booker', description: 'books meeting slots.' },
          ],
        },
        { name: 'booker', systemPrompt: 'You book meeting slots.', tools: ['book_slot'] },
        { name: 'hasty', systemPrompt: 'You are in a hurry.', tools: [], delegates: [{ role: 'booker', description: 'books meeting slots.', timeoutMs: 800 }] },
      ],
    });
  platform = await bootPlatform('teams', {
    env: {
      orchestrator: {
        AGENT_PROFILES_FILE: profiles.file,
        MAX_DELEGATION_DEPTH: '1',
        ...FAST_RECOVERY,
      },
    },
  });
  runner = await startRunnerProcess(platform, 'booking-runner', 'test/e2e/src/fixtures/booking-runner.ts');
  gatedRunner = await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts');
  await waitForCatalog(platform.apiUrl, ['book_slot', 'archive_orders']);
  redis = createRedis({ url: platform.redisUrl, name: 'teams-test', logger });
});
afterAll(async () => {
  redis?.disconnect();
  await runner?.kill();
  await gatedRunner?.kill();
  await platform?.stop();
  await profiles?.remove();
});

async function runOf(runId: string, tenant = TENANT): Promise<RunJson> {
  const run = await api<RunJson>(platform, 'GET', `/v1/runs/${runId}`, tenant);
  expect(run.status).toBe(200);
  return run.body;
}

const BOOKED = 'Booked: tuesday-10:00 (booking #1 for this call).';

describe('delegation to roles as child runs', () => {
  it('runs two delegations of one step concurrently as child runs and survives an orchestrator killed mid-child, never re-running the finished child', async () => {
    const before = new Set(await redis.keys('booking:started:*'));
    const pending = api<Turn>(platform, 'POST', '/v1/conversations/team-1/messages', TENANT, { content: '[scenario:team-lead-parallel] sort out my week' });
    // The booker child is inside its 3 s booking; the researcher child has answered already.
    const startedKey = await waitFor('the booking to start', async () => (await redis.keys('booking:started:*')).find((k) => !before.has(k)));
    await waitFor('the researcher child to finish', async () => ((await simRequests(platform)).some((r) => r.scenario === 'team-research') ? true : undefined));
    await platform.kill('orchestrator');
    await platform.start('orchestrator');

    const turn = await pending;
    expect(turn.status).toBe(200);
    expect(turn.body.status).toBe('completed');
    expect(turn.body.response).toBe(`Team answer. Booker: ${BOOKED} Researcher: Research: the sky is blue.`);
    expect(turn.body.toolCalls.map((c) => [c.name, c.status])).toEqual([
      ['delegate_to_researcher', 'success'],
      ['delegate_to_booker', 'success'],
    ]);
    // The side effect happened once, and the finished child was not asked again after the crash.
    const callId = startedKey.slice('booking:started:'.length);
    expect(await redis.get(`booking:done:${callId}`)).toBe('1');
    expect((await simRequests(platform)).filter((r) => r.scenario === 'team-research')).toHaveLength(1);

    const parent = await runOf(turn.body.runId);
    expect(parent).toMatchObject({ status: 'completed', parentRunId: null, chain: ['lead'], depth: 0 });
    expect(parent.children.map((c) => [c.role, c.status]).sort()).toEqual([
      ['booker', 'completed'],
      ['researcher', 'completed'],
    ]);
    const booker = parent.children.find((c) => c.role === 'booker')!;
    const child = await runOf(booker.runId);
    expect(child).toMatchObject({ parentRunId: parent.runId, chain: ['lead', 'booker'], depth: 1, conversationId: booker.conversationId, children: [] });
    expect(child.result.response).toBe(BOOKED);
    // Its own transcript and history, apart from the parent's conversation.
    const history = await api<{ messages: Array<{ message: { role: string } }> }>(platform, 'GET', `/v1/conversations/${booker.conversationId}/messages`, TENANT);
    expect(history.body.messages.map((m) => m.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

    // The parent's stream carries its children's start, events and end.
    const events = runEventsOf(await readSse(await watchRun(platform, TENANT, parent.runId)));
    const started = events.filter((e) => e.type === 'child_run_started').map((e) => e.data['role']);
    expect(started.sort()).toEqual(['booker', 'researcher']);
    expect(events.some((e) => e.type === 'child_run_event' && e.data['role'] === 'researcher')).toBe(true);
    expect(events.filter((e) => e.type === 'child_run_finished').map((e) => e.data['role']).sort()).toEqual(['booker', 'researcher']);
  });

  it('keeps child runs to their tenant, and their conversations to their team', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-2/messages', TENANT, { content: '[scenario:team-lead-loop] who knows' });
    const parent = await runOf(turn.body.runId);
    const childId = parent.children[0]!.runId;
    expect((await api(platform, 'GET', `/v1/runs/${childId}`, 'other-tenant')).status).toBe(404);
    expect((await api(platform, 'DELETE', `/v1/runs/${childId}`, 'other-tenant')).status).toBe(404);
    expect((await api(platform, 'GET', `/v1/conversations/${parent.children[0]!.conversationId}/messages`, 'other-tenant')).body).toMatchObject({ messages: [] });
    // A child's conversation belongs to its team: messages go to the team's conversation.
    const direct = await api(platform, 'POST', `/v1/conversations/${parent.children[0]!.conversationId}/messages`, TENANT, { content: 'hello child' });
    expect(direct.status).toBe(400);
    expect(direct.body).toMatchObject({ error: { code: 'DELEGATION_CONVERSATION' } });
  });

  it('refuses a delegation back to a role already in the chain (a loop) with a clear result', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-3/messages', TENANT, { content: '[scenario:team-lead-loop] who knows' });
    expect(turn.body.status).toBe('completed');
    expect(turn.body.response).toContain("delegation refused: 'lead' is already in the delegation chain (lead → researcher → lead)");
    const parent = await runOf(turn.body.runId);
    const child = await runOf(parent.children[0]!.runId);
    expect(child.result.toolCalls).toEqual([expect.objectContaining({ name: 'delegate_to_lead', status: 'denied', errorCode: 'DELEGATION_LOOP' })]);
    expect(child.children).toEqual([]); // nothing was started
  });

  it('refuses a delegation past the depth limit', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-4/messages', TENANT, { content: '[scenario:team-lead-deep] go deep' });
    expect(turn.body.response).toContain('at the depth limit (1)');
    const parent = await runOf(turn.body.runId);
    const child = await runOf(parent.children[0]!.runId);
    expect(child.result.toolCalls).toEqual([expect.objectContaining({ name: 'delegate_to_booker', status: 'denied', errorCode: 'DELEGATION_DEPTH_EXCEEDED' })]);
  });

  it('gives a delegation past its deadline a timeout result and cancels the child', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-5/messages', TENANT, { content: '[scenario:team-lead-book] quickly', profile: 'hasty' });
    expect(turn.body.status).toBe('completed');
    expect(turn.body.toolCalls).toEqual([expect.objectContaining({ name: 'delegate_to_booker', status: 'timeout' })]);
    const parent = await runOf(turn.body.runId);
    const childId = parent.children[0]!.runId;
    await waitFor('the child to be cancelled', async () => ((await runOf(childId)).status === 'cancelled' ? true : undefined));
  });

  it('cancels the children with their parent, and the parent\'s call gets its one result', async () => {
    const response = await postMessageStream(platform, TENANT, 'team-6', { content: '[scenario:team-lead-book] book it' });
    const parentId = response.headers.get('x-run-id') ?? '';
    expect(parentId).toMatch(/^run_/);
    const reading = readSse(response);
    const childId = await waitFor('the child run to be started', async () => (await runOf(parentId)).children[0]?.runId);
    await waitFor('the child to be running', async () => ((await runOf(childId)).status === 'running' ? true : undefined));
    const cancel = await api(platform, 'DELETE', `/v1/runs/${parentId}`, TENANT);
    expect(cancel.status).toBe(202);
    const events = runEventsOf(await reading);
    expect(events.at(-1)?.type).toBe('execution_end');
    const parent = await waitFor('the parent to end', async () => {
      const run = await runOf(parentId);
      return run.status === 'queued' || run.status === 'running' ? undefined : run;
    });
    expect(parent.status).toBe('cancelled');
    // Closure: the delegation call has exactly one result, a cancellation.
    expect(parent.result.toolCalls).toEqual([expect.objectContaining({ name: 'delegate_to_booker', status: 'cancelled' })]);
    await waitFor('the child to be cancelled', async () => ((await runOf(childId)).status === 'cancelled' ? true : undefined));
  });
});

describe('a child run that stops for the user', () => {
  const ASKED = { region: 'emea', olderThanDays: 90 };
  const archived = (turn: Turn) => JSON.parse(turn.response.replace(/^Lead: Archive result: /, '')) as unknown;

  async function askArchive(conversation: string): Promise<{ parentRunId: string; child: RunJson; approvalId: string }> {
    const turn = await api<Turn & { pending: Array<{ callId: string; agentName: string; waitingFor: string; approval?: { approvalId: string } }> }>(
      platform,
      'POST',
      `/v1/conversations/${conversation}/messages`,
      TENANT,
      { content: `[scenario:team-lead-archive] Archive the EMEA orders older than 90 days (${conversation}).` },
    );
    expect(turn.status).toBe(200);
    // The parent waits with its child: the user is asked in the parent's conversation.
    expect(turn.body).toMatchObject({ status: 'waiting', pending: [{ agentName: 'delegate_to_archivist', waitingFor: 'approval' }] });
    const approvalId = turn.body.pending[0]!.approval!.approvalId;
    expect(approvalId).toBeTruthy();
    const parent = await runOf(turn.body.runId);
    const child = await runOf(parent.children[0]!.runId);
    expect(child).toMatchObject({ status: 'waiting', chain: ['lead', 'archivist'], rootConversationId: conversation });
    return { parentRunId: parent.runId, child, approvalId };
  }

  it('makes the parent wait; "yes" in the parent\'s conversation resumes the child, then the parent', async () => {
    const { child } = await askArchive('team-approve-1');
    const yes = await api<Turn>(platform, 'POST', '/v1/conversations/team-approve-1/messages', TENANT, { content: 'yes' });
    expect(yes.status).toBe(200);
    expect(yes.body.status).toBe('completed');
    expect(archived(yes.body)).toEqual({ archived: 42, ...ASKED });
    // The delegation's one result arrives as the resumed call, in the parent's turn.
    expect(yes.body.toolCalls).toEqual([expect.objectContaining({ name: 'delegate_to_archivist', status: 'success' })]);
    expect(yes.body.toolCalls[0]!.callId).toMatch(/:resumed$/);
    // The child's conversation holds the answer and the child's finished run.
    const parent = await runOf(yes.body.runId);
    expect(parent.children).toEqual([expect.objectContaining({ role: 'archivist', conversationId: child.conversationId, status: 'completed' })]);
    const history = await api<{ messages: Array<{ message: { role: string; content?: string } }> }>(platform, 'GET', `/v1/conversations/${child.conversationId}/messages`, TENANT);
    expect(history.body.messages.filter((m) => m.message.role === 'user').map((m) => m.message.content)).toEqual([expect.stringContaining('Archive the EMEA'), 'yes']);
  });

  it('resumes the child, then the parent, on a decision through the approvals API', async () => {
    const { approvalId } = await askArchive('team-approve-2');
    const listed = await api<{ approvals: Array<{ approvalId: string }> }>(platform, 'GET', '/v1/approvals', TENANT);
    expect(listed.body.approvals.map((a) => a.approvalId)).toContain(approvalId);
    const decided = await api<Turn & { conversationId: string }>(platform, 'POST', `/v1/approvals/${approvalId}`, TENANT, { decision: 'edit', changes: { olderThanDays: 365 } });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ status: 'completed', conversationId: 'team-approve-2' });
    expect(archived(decided.body)).toEqual({ archived: 42, region: 'emea', olderThanDays: 365 });
  });
});

describe('a committee', () => {
  it('asks its roles in parallel, resolves by majority and flags a numeric conflict past the tolerance', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-committee/messages', TENANT, { content: '[scenario:team-lead-committee] the offsite' });
    expect(turn.status).toBe(200);
    expect(turn.body.status).toBe('completed');
    expect(turn.body.toolCalls).toEqual([expect.objectContaining({ name: 'ask_committee_estimates', status: 'success' })]);
    const result = JSON.parse(turn.body.response.replace(/^Committee: /, '')) as {
      value: number;
      decidedBy: string;
      winners: string[];
      conflict: { min: number; max: number; tolerance: number; outliers: string[] } | null;
      members: Array<{ role: string; status: string; value: number; confidence: number; childRunId: string }>;
    };
    expect(result).toMatchObject({ value: 100, decidedBy: 'majority', winners: ['estimator-a', 'estimator-b'] });
    expect(result.conflict).toMatchObject({ min: 100, max: 120, tolerance: 0.05, outliers: ['estimator-c'] });
    expect(result.members.map((m) => [m.role, m.status, m.value, m.confidence])).toEqual([
      ['estimator-a', 'completed', 100, 0.6],
      ['estimator-b', 'completed', 102, 0.7],
      ['estimator-c', 'completed', 120, 0.9],
    ]);
    // Each member is a child run of the lead's run, asked the same question.
    const parent = await runOf(turn.body.runId);
    expect(parent.children.map((c) => c.role).sort()).toEqual(['estimator-a', 'estimator-b', 'estimator-c']);
    expect(parent.children.map((c) => c.runId).sort()).toEqual(result.members.map((m) => m.childRunId).sort());
  });
});
