// Replaying a run (issue 37 item 5, docs/conversations.md#replaying-a-run): a finished run with a
// calculator call is replayed from the step after the tool result with another model, and from
// step 0 with a draft version of its agent. The replayed steps are answered from the original's
// journal (llm-sim gets no request for them, the calculator's runner is not called again), the
// replay lives in a fork of the conversation before the run's message, and the original run and
// conversation are unchanged. Then the refusals: unknown and another tenant's run, a live run, a
// step out of range, a missing version, a model the tier does not permit, a member.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  api,
  bootPlatform,
  tokenFor,
  waitFor,
  type Caller,
  type StoredMessageJson,
  type SuitePlatform,
  type TurnJson,
} from './support.js';

const TENANT = 'replays';
const DEV: Caller = { tenant: TENANT, roles: ['developer'], subject: 'dev' };
const TIERS = JSON.stringify({ basic: { agentModels: ['sim-1'] } });

let platform: SuitePlatform;

beforeAll(async () => {
  platform = await bootPlatform('replays', {
    env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0', TENANT_TIERS: TIERS }, api: { TENANT_TIERS: TIERS } },
  });
});
afterAll(async () => {
  await platform?.stop();
});

interface SimRequest {
  structuredReply: string | null;
  body: { model: string; messages: { role: string; content: string | null }[] };
}

/** The chat completions of turns (not memory's structured requests) whose user messages hold `tag`. */
async function modelCalls(tag: string): Promise<SimRequest[]> {
  const response = await fetch(`${platform.llmSimUrl}/_sim/requests`);
  const { requests } = (await response.json()) as { requests: SimRequest[] };
  return requests
    .filter((r) => r.structuredReply === null)
    .filter((r) => r.body.messages.some((m) => m.role === 'user' && (m.content ?? '').includes(tag)));
}

/** How many calls the calculator's runner replicas have served ($SRV.STATS, through GET /v1/tools). */
async function calculatorCalls(): Promise<number> {
  const { body } = await api<{ tools: { name: string; runnerInstances: { requests: number }[] }[] }>(
    platform,
    'GET',
    '/v1/tools',
    DEV,
  );
  const calculator = body.tools.find((t) => t.name === 'calculator')!;
  return calculator.runnerInstances.reduce((sum, i) => sum + i.requests, 0);
}

const spec = (marker: string) => ({
  name: 'replayer',
  instructions: `You compute. VERSION-MARKER ${marker}.`,
  model: 'sim-1',
  tools: ['calculator'],
  overrides: { models: ['sim-large'] },
});

type Replay = TurnJson & { conversationId: string; replayOf: string; replayFromStep: number };
interface RunJson {
  runId: string;
  conversationId: string;
  status: string;
  transcript: unknown[];
  result: { response: string } | null;
  agent?: { id: string; version: number };
  overrides?: { model?: string } | null;
  replayOf?: string | null;
  replayFromStep?: number | null;
  replays?: string[];
}

const replay = (runId: string, body: Record<string, unknown>, caller: Caller = DEV) =>
  api<Replay & { error?: { code: string; details?: { field?: string } } }>(
    platform,
    'POST',
    `/v1/runs/${runId}/replays`,
    caller,
    body,
  );
const getRun = (runId: string) => api<RunJson>(platform, 'GET', `/v1/runs/${runId}`, DEV);
const send = (conversation: string, content: string) =>
  api<TurnJson>(platform, 'POST', `/v1/conversations/${conversation}/messages`, DEV, { content, agent: 'replayer' });

/** A conversation's stored history as its owner (the developer) reads it. */
const history = async (conversationId: string): Promise<StoredMessageJson[]> => {
  const page = await api<{ messages: StoredMessageJson[] }>(
    platform,
    'GET',
    `/v1/conversations/${conversationId}/messages?limit=1000`,
    DEV,
  );
  expect(page.status).toBe(200);
  return page.body.messages;
};

let original: RunJson;

beforeAll(async () => {
  const created = await api<{ revision: number }>(platform, 'POST', '/v1/agents', DEV, spec('v1'));
  expect(created.status).toBe(201);
  // Version 2 is a draft: a replay may try it, as a message may.
  const draft = await fetch(`${platform.apiUrl}/v1/agents/replayer?draft=true`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${await tokenFor(DEV)}`,
      'content-type': 'application/json',
      'if-match': `"${created.body.revision}"`,
    },
    body: JSON.stringify(spec('v2')),
  });
  expect(draft.status).toBe(200);

  expect((await send('replay-1', '[scenario:plain] tag-prelude')).body).toMatchObject({ status: 'completed' });
  const before = await calculatorCalls();
  const turn = await send('replay-1', '[scenario:calculator] tag-r1 what is 12 * (3 + 4)?');
  expect(turn.body).toMatchObject({ status: 'completed', response: '12 * (3 + 4) = 84.' });
  expect(await calculatorCalls()).toBe(before + 1);
  original = (await getRun(turn.body.runId)).body;
  expect(original.transcript).toHaveLength(2);
});

it('replays from the step after the tool result with another model: nothing replayed is asked or run again', async () => {
  const historyBefore = await history('replay-1');
  const callsBefore = (await modelCalls('tag-r1')).length;
  const runnerBefore = await calculatorCalls();

  const replayed = await replay(original.runId, { fromStep: 1, model: 'sim-large' });
  expect(replayed.status).toBe(201);
  expect(replayed.body).toMatchObject({
    status: 'completed',
    response: '12 * (3 + 4) = 84.',
    replayOf: original.runId,
    replayFromStep: 1,
  });
  expect(replayed.body.conversationId).not.toBe('replay-1');

  // One model request (step 1, live, on the other model), none for step 0; the runner not called.
  const calls = (await modelCalls('tag-r1')).slice(callsBefore);
  expect(calls).toHaveLength(1);
  expect(calls[0]!.body.model).toBe('sim-large');
  const messages = calls[0]!.body.messages;
  expect(messages.find((m) => m.role === 'tool')?.content).toContain('84');
  // The fork's history before the run's message: the earlier turn of the conversation.
  expect(messages.some((m) => m.role === 'user' && (m.content ?? '').includes('tag-prelude'))).toBe(true);
  expect(await calculatorCalls()).toBe(runnerBefore);

  const run = (await getRun(replayed.body.runId)).body;
  expect(run).toMatchObject({
    status: 'completed',
    conversationId: replayed.body.conversationId,
    replayOf: original.runId,
    replayFromStep: 1,
    overrides: { model: 'sim-large' },
    agent: { version: 1 },
  });
  expect(run.transcript).toHaveLength(2);
  // The replay's conversation: the prelude, then the replay's own turn.
  const fork = await history(replayed.body.conversationId);
  expect(fork.slice(0, 2).map((m) => m.message.content)).toEqual(
    historyBefore.slice(0, 2).map((m) => m.message.content),
  );
  expect(fork.at(-1)?.message.content).toBe('12 * (3 + 4) = 84.');
  expect(fork.slice(2).every((m) => m.runId === replayed.body.runId)).toBe(true);

  // The original: unchanged, and it lists its replay; so does the run list.
  expect(await history('replay-1')).toEqual(historyBefore);
  const after = (await getRun(original.runId)).body;
  expect(after).toMatchObject({ status: original.status, transcript: original.transcript, replayOf: null });
  expect(after.replays).toContain(replayed.body.runId);
  const listed = await api<{ runs: { runId: string; replayOf: string | null; replayFromStep: number | null }[] }>(
    platform,
    'GET',
    `/v1/runs?conversationId=${replayed.body.conversationId}`,
    DEV,
  );
  expect(listed.body.runs).toEqual([
    expect.objectContaining({ runId: replayed.body.runId, replayOf: original.runId, replayFromStep: 1 }),
  ]);
});

it('replays from step 0 under a draft version: its system prompt reaches the model, the tool runs live', async () => {
  const callsBefore = (await modelCalls('tag-r1')).length;
  const runnerBefore = await calculatorCalls();
  const replayed = await replay(original.runId, { fromStep: 0, agentVersion: 2 });
  expect(replayed.status).toBe(201);
  expect(replayed.body).toMatchObject({ status: 'completed', response: '12 * (3 + 4) = 84.' });
  const calls = (await modelCalls('tag-r1')).slice(callsBefore);
  expect(calls).toHaveLength(2);
  for (const call of calls)
    expect(call.body.messages.find((m) => m.role === 'system')?.content).toContain('VERSION-MARKER v2.');
  expect(await calculatorCalls()).toBe(runnerBefore + 1);
  expect((await getRun(replayed.body.runId)).body).toMatchObject({ agent: { version: 2 }, replayFromStep: 0 });
});

it('refuses what cannot be replayed, in the error envelope', async () => {
  const code = (r: { status: number; body: { error?: { code: string } } }) => [r.status, r.body.error?.code];
  expect(code(await replay(`run_${randomUUID()}`, { fromStep: 0 }))).toEqual([404, 'RUN_NOT_FOUND']);
  const stranger = { tenant: 'replays-other', roles: ['developer'], subject: 'x' };
  expect(code(await replay(original.runId, { fromStep: 0 }, stranger))).toEqual([404, 'RUN_NOT_FOUND']);

  for (const fromStep of [2, 5]) {
    const out = await replay(original.runId, { fromStep });
    expect(code(out)).toEqual([400, 'INVALID_FROM_STEP']);
    expect(out.body.error?.details?.field).toBe('fromStep');
  }
  expect(code(await replay(original.runId, { fromStep: 0, agentVersion: 99 }))).toEqual([
    404,
    'AGENT_VERSION_NOT_FOUND',
  ]);
  const basic = { tenant: TENANT, roles: ['developer'], subject: 'dev', tier: 'basic' };
  expect(code(await replay(original.runId, { fromStep: 1, model: 'sim-large' }, basic))).toEqual([
    403,
    'NOT_PERMITTED_BY_TIER',
  ]);
  expect(code(await replay(original.runId, { fromStep: 0 }, TENANT))).toEqual([403, 'FORBIDDEN_ROLE']);

  // A run still in flight: its model call held by llm-sim until the test lets it go.
  await fetch(`${platform.llmSimUrl}/_sim/fault-window`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'hang', durationMs: 60_000 }),
  });
  const inFlight = send('replay-live', '[scenario:plain] tag-live');
  try {
    const live = await waitFor('the live run', async () => {
      const page = await api<{ runs: { runId: string; status: string }[] }>(
        platform,
        'GET',
        '/v1/runs?conversationId=replay-live',
        DEV,
      );
      return page.body.runs.find((r) => r.status === 'running');
    });
    expect(code(await replay(live.runId, { fromStep: 0 }))).toEqual([409, 'RUN_NOT_FINISHED']);
  } finally {
    await fetch(`${platform.llmSimUrl}/_sim/fault-window`, { method: 'DELETE' });
  }
  expect((await inFlight).body).toMatchObject({ status: 'completed' });
});
