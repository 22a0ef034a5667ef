// Teams of agents: a profile's roles appear to the model as delegation tools; each call runs as a
// durable child run (its own conversation, journal and transcript) whose answer is the call's one
// result. Loops and depth are refused, deadlines and cancellation reach the child, and a crash of
// the orchestrator resumes parent and children without running a finished child again.
import { createLogger, createRedis, type Redis } from '@platform/service-kit';
import type { ManagedProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMessageStream, readSse, runEventsOf, watchRun } from './sse.js';
import {
  api,
  bootPlatform,
  simRequests,
  startRunnerProcess,
  type SuitePlatform,
  waitFor,
  waitForCatalog,
  FAST_RECOVERY,
  writeProfilesFile,
} from './support.js';

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
          { role: 'fragile', description: 'checks stock levels.', fallbackRole: 'stand-in' },
        ],
        committees: [
          {
            name: 'estimates',
            description: 'estimates a number.',
            roles: ['estimator-a', 'estimator-b', 'estimator-c'],
            strategy: 'majority',
            tolerance: 0.05,
          },
          {
            name: 'decide',
            description: 'estimates a number; the user decides.',
            roles: ['estimator-a', 'estimator-c'],
            strategy: 'user',
          },
        ],
      },
      {
        name: 'lead-hurried',
        systemPrompt: 'You lead a small team in a hurry.',
        tools: [],
        committees: [
          {
            name: 'decide',
            description: 'estimates a number; the user decides.',
            roles: ['estimator-a', 'estimator-c'],
            strategy: 'user',
            decisionTimeoutMs: 500,
          },
        ],
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
      // Its model always refuses the key, so its runs fail; the lead's delegation reassigns the task.
      { name: 'fragile', systemPrompt: 'You check stock. [persona-scenario:auth-failure]', tools: [] },
      { name: 'stand-in', systemPrompt: 'You stand in. [persona-scenario:plain]', tools: [] },
      { name: 'steady', systemPrompt: 'You answer.', tools: [], fallbackModels: ['sim-large'] },
      {
        name: 'hasty',
        systemPrompt: 'You are in a hurry.',
        tools: [],
        delegates: [{ role: 'booker', description: 'books meeting slots.', timeoutMs: 800 }],
      },
    ],
  });
  platform = await bootPlatform('teams', {
    env: {
      orchestrator: {
        AGENT_PROFILES_FILE: profiles.file,
        MAX_DELEGATION_DEPTH: '1',
        ...FAST_RECOVERY,
      },
      'agent-pool': { SWEEP_INTERVAL_MS: '200' },
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
    const since = new Date().toISOString();
    const pending = api<Turn>(platform, 'POST', '/v1/conversations/team-1/messages', TENANT, {
      content: '[scenario:team-lead-parallel] sort out my week',
    });
    // The booker child is inside its 3 s booking; the researcher child has answered already.
    const startedKey = await waitFor('the booking to start', async () =>
      (await redis.keys('booking:started:*')).find((k) => !before.has(k)),
    );
    // Finished means its run is completed, not only that the model was asked (a kill in between
    // would resume the child and ask the model again).
    await waitFor('the researcher child to finish', async () => {
      const children = await api<{ runs: Array<{ profile: string }> }>(
        platform,
        'GET',
        `/v1/runs?source=child&status=completed&createdAfter=${encodeURIComponent(since)}`,
        TENANT,
      );
      return children.body.runs.some((r) => r.profile === 'researcher') ? true : undefined;
    });
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
    expect(child).toMatchObject({
      parentRunId: parent.runId,
      chain: ['lead', 'booker'],
      depth: 1,
      conversationId: booker.conversationId,
      children: [],
    });
    expect(child.result.response).toBe(BOOKED);
    // Its own transcript and history, apart from the parent's conversation.
    const history = await api<{ messages: Array<{ message: { role: string } }> }>(
      platform,
      'GET',
      `/v1/conversations/${booker.conversationId}/messages`,
      TENANT,
    );
    expect(history.body.messages.map((m) => m.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

    // The parent's stream carries its children's start, events and end.
    const events = runEventsOf(await readSse(await watchRun(platform, TENANT, parent.runId)));
    const started = events.filter((e) => e.type === 'child_run_started').map((e) => e.data['role']);
    expect(started.sort()).toEqual(['booker', 'researcher']);
    expect(events.some((e) => e.type === 'child_run_event' && e.data['role'] === 'researcher')).toBe(true);
    expect(
      events
        .filter((e) => e.type === 'child_run_finished')
        .map((e) => e.data['role'])
        .sort(),
    ).toEqual(['booker', 'researcher']);
  });

  it('keeps child runs to their tenant, and their conversations to their team', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-2/messages', TENANT, {
      content: '[scenario:team-lead-loop] who knows',
    });
    const parent = await runOf(turn.body.runId);
    const childId = parent.children[0]!.runId;
    expect((await api(platform, 'GET', `/v1/runs/${childId}`, 'other-tenant')).status).toBe(404);
    expect((await api(platform, 'DELETE', `/v1/runs/${childId}`, 'other-tenant')).status).toBe(404);
    expect(
      (await api(platform, 'GET', `/v1/conversations/${parent.children[0]!.conversationId}/messages`, 'other-tenant'))
        .body,
    ).toMatchObject({ messages: [] });
    // A child's conversation belongs to its team: messages go to the team's conversation.
    const direct = await api(
      platform,
      'POST',
      `/v1/conversations/${parent.children[0]!.conversationId}/messages`,
      TENANT,
      { content: 'hello child' },
    );
    expect(direct.status).toBe(400);
    expect(direct.body).toMatchObject({ error: { code: 'DELEGATION_CONVERSATION' } });
  });

  it('refuses a delegation back to a role already in the chain (a loop) with a clear result', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-3/messages', TENANT, {
      content: '[scenario:team-lead-loop] who knows',
    });
    expect(turn.body.status).toBe('completed');
    expect(turn.body.response).toContain(
      "delegation refused: 'lead' is already in the delegation chain (lead → researcher → lead)",
    );
    const parent = await runOf(turn.body.runId);
    const child = await runOf(parent.children[0]!.runId);
    expect(child.result.toolCalls).toEqual([
      expect.objectContaining({ name: 'delegate_to_lead', status: 'denied', errorCode: 'DELEGATION_LOOP' }),
    ]);
    expect(child.children).toEqual([]); // nothing was started
  });

  it('refuses a delegation past the depth limit', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-4/messages', TENANT, {
      content: '[scenario:team-lead-deep] go deep',
    });
    expect(turn.body.response).toContain('at the depth limit (1)');
    const parent = await runOf(turn.body.runId);
    const child = await runOf(parent.children[0]!.runId);
    expect(child.result.toolCalls).toEqual([
      expect.objectContaining({ name: 'delegate_to_booker', status: 'denied', errorCode: 'DELEGATION_DEPTH_EXCEEDED' }),
    ]);
  });

  it('gives a delegation past its deadline a timeout result and cancels the child', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-5/messages', TENANT, {
      content: '[scenario:team-lead-book] quickly',
      profile: 'hasty',
    });
    expect(turn.body.status).toBe('completed');
    expect(turn.body.toolCalls).toEqual([expect.objectContaining({ name: 'delegate_to_booker', status: 'timeout' })]);
    const parent = await runOf(turn.body.runId);
    const childId = parent.children[0]!.runId;
    await waitFor('the child to be cancelled', async () =>
      (await runOf(childId)).status === 'cancelled' ? true : undefined,
    );
  });

  it("cancels the children with their parent, and the parent's call gets its one result", async () => {
    const response = await postMessageStream(platform, TENANT, 'team-6', {
      content: '[scenario:team-lead-book] book it',
    });
    const parentId = response.headers.get('x-run-id') ?? '';
    expect(parentId).toMatch(/^run_/);
    const reading = readSse(response);
    const childId = await waitFor(
      'the child run to be started',
      async () => (await runOf(parentId)).children[0]?.runId,
    );
    await waitFor('the child to be running', async () =>
      (await runOf(childId)).status === 'running' ? true : undefined,
    );
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
    expect(parent.result.toolCalls).toEqual([
      expect.objectContaining({ name: 'delegate_to_booker', status: 'cancelled' }),
    ]);
    await waitFor('the child to be cancelled', async () =>
      (await runOf(childId)).status === 'cancelled' ? true : undefined,
    );
  });
});

describe('a child run that stops for the user', () => {
  const ASKED = { region: 'emea', olderThanDays: 90 };
  const archived = (turn: Turn) => JSON.parse(turn.response.replace(/^Lead: Archive result: /, '')) as unknown;

  async function askArchive(
    conversation: string,
  ): Promise<{ parentRunId: string; child: RunJson; approvalId: string }> {
    const turn = await api<
      Turn & {
        pending: Array<{ callId: string; agentName: string; waitingFor: string; approval?: { approvalId: string } }>;
      }
    >(platform, 'POST', `/v1/conversations/${conversation}/messages`, TENANT, {
      content: `[scenario:team-lead-archive] Archive the EMEA orders older than 90 days (${conversation}).`,
    });
    expect(turn.status).toBe(200);
    // The parent waits with its child: the user is asked in the parent's conversation.
    expect(turn.body).toMatchObject({
      status: 'waiting',
      pending: [{ agentName: 'delegate_to_archivist', waitingFor: 'approval' }],
    });
    const approvalId = turn.body.pending[0]!.approval!.approvalId;
    expect(approvalId).toBeTruthy();
    const parent = await runOf(turn.body.runId);
    const child = await runOf(parent.children[0]!.runId);
    expect(child).toMatchObject({ status: 'waiting', chain: ['lead', 'archivist'], rootConversationId: conversation });
    return { parentRunId: parent.runId, child, approvalId };
  }

  it('makes the parent wait; "yes" in the parent\'s conversation resumes the child, then the parent', async () => {
    const { child } = await askArchive('team-approve-1');
    const yes = await api<Turn>(platform, 'POST', '/v1/conversations/team-approve-1/messages', TENANT, {
      content: 'yes',
    });
    expect(yes.status).toBe(200);
    expect(yes.body.status).toBe('completed');
    expect(archived(yes.body)).toEqual({ archived: 42, ...ASKED });
    // The delegation's one result arrives as the resumed call, in the parent's turn.
    expect(yes.body.toolCalls).toEqual([expect.objectContaining({ name: 'delegate_to_archivist', status: 'success' })]);
    expect(yes.body.toolCalls[0]!.callId).toMatch(/:resumed$/);
    // The child's conversation holds the answer and the child's finished run.
    const parent = await runOf(yes.body.runId);
    expect(parent.children).toEqual([
      expect.objectContaining({ role: 'archivist', conversationId: child.conversationId, status: 'completed' }),
    ]);
    const history = await api<{ messages: Array<{ message: { role: string; content?: string } }> }>(
      platform,
      'GET',
      `/v1/conversations/${child.conversationId}/messages`,
      TENANT,
    );
    expect(history.body.messages.filter((m) => m.message.role === 'user').map((m) => m.message.content)).toEqual([
      expect.stringContaining('Archive the EMEA'),
      'yes',
    ]);
  });

  it('resumes the child, then the parent, on a decision through the approvals API', async () => {
    const { approvalId } = await askArchive('team-approve-2');
    const listed = await api<{ approvals: Array<{ approvalId: string }> }>(platform, 'GET', '/v1/approvals', TENANT);
    expect(listed.body.approvals.map((a) => a.approvalId)).toContain(approvalId);
    const decided = await api<Turn & { conversationId: string }>(
      platform,
      'POST',
      `/v1/approvals/${approvalId}`,
      TENANT,
      { decision: 'edit', changes: { olderThanDays: 365 } },
    );
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ status: 'completed', conversationId: 'team-approve-2' });
    expect(archived(decided.body)).toEqual({ archived: 42, region: 'emea', olderThanDays: 365 });
  });
});

describe("a resumed child on the parent's stream", () => {
  it("forwards the events of a child answered in the parent's conversation to the parent's stream, before the parent's answer", async () => {
    const turn = await api<Turn & { pending: unknown[] }>(
      platform,
      'POST',
      '/v1/conversations/team-approve-3/messages',
      TENANT,
      {
        content: '[scenario:team-lead-archive] Archive the EMEA orders older than 90 days (team-approve-3).',
      },
    );
    expect(turn.body.status).toBe('waiting');
    const response = await postMessageStream(platform, TENANT, 'team-approve-3', { content: 'yes' });
    const parentId = response.headers.get('x-run-id') ?? '';
    const events = runEventsOf(await readSse(response));
    const parent = await runOf(parentId);
    expect(parent.status).toBe('completed');
    // The child that resumed is the answer run of the waiting child's conversation.
    const resumed = parent.children[0]!;
    const forwarded = events.filter((e) => e.type === 'child_run_event' && e.data['childRunId'] === resumed.runId);
    const childTypes = forwarded.map((e) => (e.data['event'] as { type: string }).type);
    expect(childTypes).toEqual(expect.arrayContaining(['execution_start', 'message_end', 'execution_end']));
    expect(childTypes.at(-1)).toBe('execution_end');
    // In order, with the child's own ids, and all before the parent's answer.
    const ids = forwarded.map((e) => (e.data['event'] as { id: number }).id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const answer = events.findIndex((e) => e.type === 'message_end');
    expect(answer).toBeGreaterThan(events.indexOf(forwarded.at(-1)!));
    expect(events.findIndex((e) => e.type === 'child_run_finished')).toBeGreaterThan(events.indexOf(forwarded.at(-1)!));
    expect(events.at(-1)?.type).toBe('execution_end');
  });
});

describe('failed steps, classified', () => {
  interface Step {
    model: { model: string; fallbackUsed: boolean; failures?: unknown[] };
    tools: Array<{ name: string; status: string; failures?: unknown[] }>;
  }

  it("shows a failed tool's class, severity and recovery in the transcript and the run's events", async () => {
    const response = await postMessageStream(platform, TENANT, 'team-fail-1', {
      content: '[scenario:unknown-tool] look it up',
    });
    const runId = response.headers.get('x-run-id') ?? '';
    const events = runEventsOf(await readSse(response));
    const run = await api<{ transcript: Step[]; result: { toolCalls: Array<{ name: string; failures?: unknown[] }> } }>(
      platform,
      'GET',
      `/v1/runs/${runId}`,
      TENANT,
    );
    const failure = { class: 'tool', kind: 'unknown_tool', severity: 'low', recovery: 'none' };
    expect(run.body.transcript[0]!.tools).toEqual([
      expect.objectContaining({ name: 'no_such_tool', status: 'invalid', failures: [failure] }),
    ]);
    expect(run.body.result.toolCalls[0]!.failures).toEqual([failure]);
    expect(events.filter((e) => e.type === 'step_failed').map((e) => e.data)).toEqual([
      expect.objectContaining({ step: 'tool', name: 'no_such_tool', failure }),
    ]);
  });

  it("records a model's 500s and the profile's fallback model that answered", async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-fail-2/messages', TENANT, {
      content: '[scenario:server-error-fallback] hello',
      profile: 'steady',
    });
    expect(turn.body).toMatchObject({ status: 'completed', response: 'Answered by the fallback model.' });
    const run = await api<{ transcript: Step[] }>(platform, 'GET', `/v1/runs/${turn.body.runId}`, TENANT);
    expect(run.body.transcript[0]!.model).toMatchObject({
      model: 'sim-large',
      fallbackUsed: true,
      failures: [
        { class: 'llm', kind: 'server', severity: 'medium', recovery: 'retry' },
        { class: 'llm', kind: 'server', severity: 'medium', recovery: 'retry' },
        { class: 'llm', kind: 'server', severity: 'medium', recovery: 'fallback' },
      ],
    });
  });

  it("reassigns a failed delegation to the role's fallbackRole once", async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-fail-3/messages', TENANT, {
      content: '[scenario:team-lead-reassign] stock please',
    });
    expect(turn.body.status).toBe('completed');
    expect(turn.body.response).toContain('Lead: Hello! This is a plain answer');
    const parent = await runOf(turn.body.runId);
    expect(parent.children.map((c) => [c.role, c.status]).sort()).toEqual([
      ['fragile', 'failed'],
      ['stand-in', 'completed'],
    ]);
    const run = await api<{ transcript: Step[] }>(platform, 'GET', `/v1/runs/${turn.body.runId}`, TENANT);
    expect(run.body.transcript[0]!.tools).toEqual([
      expect.objectContaining({
        name: 'delegate_to_fragile',
        status: 'success',
        failures: [{ class: 'coordination', kind: 'child_failed', severity: 'medium', recovery: 'reassign' }],
      }),
    ]);
  });
});

describe('a committee', () => {
  it('asks its roles in parallel, resolves by majority and flags a numeric conflict past the tolerance', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/team-committee/messages', TENANT, {
      content: '[scenario:team-lead-committee] the offsite',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.status).toBe('completed');
    expect(turn.body.toolCalls).toEqual([
      expect.objectContaining({ name: 'ask_committee_estimates', status: 'success' }),
    ]);
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

  interface Pending {
    callId: string;
    agentName: string;
    waitingFor: string;
    prompt: string;
    approval: {
      kind: string;
      approvalId: string;
      options: Array<{ role: string; value: number }>;
      conflict: { min: number; max: number } | null;
      expiresAt: string;
    };
  }

  async function askUserCommittee(conversation: string, profile?: string): Promise<Turn & { pending: Pending[] }> {
    const turn = await api<Turn & { pending: Pending[] }>(
      platform,
      'POST',
      `/v1/conversations/${conversation}/messages`,
      TENANT,
      { content: '[scenario:team-lead-committee-user] the offsite', ...(profile ? { profile } : {}) },
    );
    expect(turn.status).toBe(200);
    // The members' answers (a numeric conflict) are put to the user; the lead's turn waits.
    expect(turn.body).toMatchObject({
      status: 'waiting',
      pending: [
        {
          agentName: 'ask_committee_decide',
          waitingFor: 'approval',
          approval: { kind: 'committee_decision', conflict: { min: 100, max: 120 } },
        },
      ],
    });
    expect(turn.body.pending[0]!.approval.options.map((o) => [o.role, o.value])).toEqual([
      ['estimator-a', 100],
      ['estimator-c', 120],
    ]);
    expect(turn.body.response).toContain('Reply with the role whose answer you accept');
    return turn.body;
  }

  const decidedOf = (turn: Turn) =>
    JSON.parse(turn.response.replace(/^Decided: /, '')) as {
      answer: string;
      value?: number;
      decidedBy: string;
      winners: string[];
      choice: string;
      conflict: unknown;
    };

  it("puts a numeric conflict to the user (strategy user); the choice made in the conversation is the committee call's one result", async () => {
    const asked = await askUserCommittee('team-committee-user');
    // Durable: the request lives in the waiting run's record, so an orchestrator restart loses nothing.
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    const chosen = await api<Turn>(platform, 'POST', '/v1/conversations/team-committee-user/messages', TENANT, {
      content: 'estimator-c',
    });
    expect(chosen.status).toBe(200);
    expect(chosen.body.status).toBe('completed');
    expect(chosen.body.toolCalls).toEqual([
      expect.objectContaining({
        name: 'ask_committee_decide',
        status: 'success',
        callId: `${asked.pending[0]!.callId}:resumed`,
      }),
    ]);
    expect(decidedOf(chosen.body)).toMatchObject({
      value: 120,
      decidedBy: 'user',
      choice: 'member',
      winners: ['estimator-c'],
      conflict: { min: 100, max: 120 },
    });
    // Decided once: the approvals API no longer knows the request, and nothing changes.
    const twice = await api<{ error?: { code: string } }>(
      platform,
      'POST',
      `/v1/approvals/${asked.pending[0]!.approval.approvalId}`,
      TENANT,
      { decision: 'edit', changes: { choice: 'estimator-a' } },
    );
    expect(twice).toMatchObject({ status: 404, body: { error: { code: 'APPROVAL_NOT_FOUND' } } });

    // A value the user types is the answer too.
    await askUserCommittee('team-committee-typed');
    const typed = await api<Turn>(platform, 'POST', '/v1/conversations/team-committee-typed/messages', TENANT, {
      content: '110',
    });
    expect(decidedOf(typed.body)).toMatchObject({
      answer: '110',
      value: 110,
      decidedBy: 'user',
      choice: 'typed',
      winners: [],
    });
  });

  it('lists the decision in /v1/approvals and decides it there: the parent finishes with the chosen answer, once', async () => {
    const asked = await askUserCommittee('team-committee-api');
    const { approvalId, expiresAt } = asked.pending[0]!.approval;
    const listed = await api<{ approvals: Array<{ approvalId: string }> }>(platform, 'GET', '/v1/approvals', TENANT);
    expect(listed.body.approvals.find((a) => a.approvalId === approvalId)).toMatchObject({
      agentName: 'ask_committee_decide',
      conversationId: 'team-committee-api',
      runId: asked.runId,
      status: 'waiting_for_approval',
      options: ['edit', 'cancel'],
      allowModification: true,
      expiresAt,
      details: {
        kind: 'committee_decision',
        committee: 'decide',
        question: expect.any(String),
        options: [
          expect.objectContaining({ role: 'estimator-a', value: 100 }),
          expect.objectContaining({ role: 'estimator-c', value: 120 }),
        ],
        conflict: { min: 100, max: 120 },
      },
    });
    // Only an answer or a cancellation is offered.
    expect(
      await api<{ error?: { code: string } }>(platform, 'POST', `/v1/approvals/${approvalId}`, TENANT, {
        decision: 'approve',
      }),
    ).toMatchObject({ status: 409, body: { error: { code: 'DECISION_NOT_OFFERED' } } });
    const decided = await api<Turn & { conversationId: string }>(
      platform,
      'POST',
      `/v1/approvals/${approvalId}`,
      TENANT,
      { decision: 'edit', changes: { choice: 'estimator-a' } },
    );
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ status: 'completed', conversationId: 'team-committee-api' });
    expect(decided.body.toolCalls).toEqual([
      expect.objectContaining({
        name: 'ask_committee_decide',
        status: 'success',
        callId: `${asked.pending[0]!.callId}:resumed`,
      }),
    ]);
    expect(decidedOf(decided.body)).toMatchObject({
      answer: expect.stringContaining('100'),
      value: 100,
      decidedBy: 'user',
      choice: 'member',
      winners: ['estimator-a'],
    });
    const again = await api<{ error?: { code: string } }>(platform, 'POST', `/v1/approvals/${approvalId}`, TENANT, {
      decision: 'cancel',
    });
    expect(again).toMatchObject({ status: 404, body: { error: { code: 'APPROVAL_NOT_FOUND' } } });
    const after = await api<{ approvals: Array<{ approvalId: string }> }>(platform, 'GET', '/v1/approvals', TENANT);
    expect(after.body.approvals.map((a) => a.approvalId)).not.toContain(approvalId);
  });

  it('expires the request at its time, without a reply: the committee call gets its COMMITTEE_DECISION_EXPIRED result', async () => {
    const asked = await askUserCommittee('team-committee-late', 'lead-hurried');
    const resumed = `${asked.pending[0]!.callId}:resumed`;
    type Stored = {
      message: { role: string; toolCallId?: string; status?: string; errorCode?: string; content?: string };
    };
    const notice = await waitFor('the expiry notice', async () =>
      (
        await api<{ messages: Stored[] }>(platform, 'GET', '/v1/conversations/team-committee-late/messages', TENANT)
      ).body.messages.find((m) => m.message.toolCallId === resumed),
    );
    expect(notice.message).toMatchObject({ role: 'tool', status: 'timeout', errorCode: 'COMMITTEE_DECISION_EXPIRED' });
    expect(notice.message.content).toContain('did not decide for the decide committee in time');
    const listed = await api<{ approvals: Array<{ approvalId: string }> }>(platform, 'GET', '/v1/approvals', TENANT);
    expect(listed.body.approvals.map((a) => a.approvalId)).not.toContain(asked.pending[0]!.approval.approvalId);
  });
});
