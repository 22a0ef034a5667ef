// Plan-and-execute: a planner model call returns a DAG of subtasks, ready subtasks run in parallel
// as child runs under their roles, results pass through the shared context, a cyclic plan is named
// and replanned, a failing subtask leads to replans and then a graceful failure, the plan is
// visible while it runs, and an orchestrator killed mid-plan resumes without re-running finished
// subtasks.
import { createLogger, createRedis, type Redis } from '@platform/service-kit';
import type { ManagedProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMessageStream, readSse, runEventsOf } from './sse.js';
import { PLAN_TEAM_PROFILES } from './plan-team.js';
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
  toolCalls: Array<{ callId: string; name: string; status: string }>;
}

interface SubtaskJson {
  id: string;
  status: string;
  attempts: number;
  childRunIds: string[];
  dependencies: string[];
}

interface PlanJson {
  status: string;
  version: number;
  replans: number;
  executionOrder: string[];
  subtasks: SubtaskJson[];
  context: Record<string, string>;
  failures: Array<{
    class: string;
    kind: string;
    severity: string;
    recovery: string;
    message: string;
    subtaskId?: string;
  }>;
  mermaid: string;
}

type TranscriptJson = Array<
  | {
      step: 'subtask';
      planVersion: number;
      subtaskId: string;
      role: string;
      status: string;
      attempts: number;
      childRunIds: string[];
      resultKey: string;
    }
  | { step: 'replan'; planVersion: number; reason: string; failureKind?: string }
  | {
      step?: undefined;
      iteration: number;
      plan: { call: string; planVersion: number; outputMode?: string };
      view: { stage: string; diagnostics: unknown[] };
      model: { model: string };
    }
>;

interface RunJson {
  runId: string;
  status: string;
  stopReason: string | null;
  plan?: PlanJson;
  transcript: TranscriptJson;
  children: Array<{
    runId: string;
    role: string;
    toolScope: string[] | null;
    status: string;
    createdAt: string;
    finishedAt: string | null;
  }>;
}

const TENANT = 'plan-tenant';
let platform: SuitePlatform;
let runner: ManagedProcess;
let redis: Redis;
let profiles: { file: string; remove: () => Promise<void> };
const logger = createLogger({ service: 'plans-test', level: 'silent' });

beforeAll(async () => {
  profiles = await writeProfilesFile('plans', PLAN_TEAM_PROFILES);
  platform = await bootPlatform('plans', {
    env: {
      orchestrator: {
        AGENT_PROFILES_FILE: profiles.file,
        ...FAST_RECOVERY,
      },
    },
  });
  runner = await startRunnerProcess(platform, 'booking-runner', 'test/e2e/src/fixtures/booking-runner.ts');
  await waitForCatalog(platform.apiUrl, ['book_slot']);
  redis = createRedis({ url: platform.redisUrl, name: 'plans-test', logger });
});
afterAll(async () => {
  redis?.disconnect();
  await runner?.kill();
  await platform?.stop();
  await profiles?.remove();
});

async function runOf(runId: string): Promise<RunJson> {
  const run = await api<RunJson>(platform, 'GET', `/v1/runs/${runId}`, TENANT);
  expect(run.status).toBe(200);
  return run.body;
}

/** How many model requests a child scenario got with this text in its task. */
async function requestsFor(scenario: string, text: string): Promise<number> {
  return (await simRequests(platform)).filter(
    (r) =>
      r.scenario === scenario &&
      r.body.messages.some((m) => m.role === 'user' && typeof m.content === 'string' && m.content.includes(text)),
  ).length;
}

const ms = (iso: string | null) => (iso ? Date.parse(iso) : Number.NaN);

describe('plan-and-execute', () => {
  it('runs a 3-subtask plan in dependency order, the two independent subtasks overlapping, with the plan visible while it runs', async () => {
    const response = await postMessageStream(platform, TENANT, 'plan-1', { content: '[scenario:plan-three] week one' });
    const runId = response.headers.get('x-run-id') ?? '';
    const reading = readSse(response);
    // While the booking runs, the plan is part of the run: facts done, booking under way, summary blocked.
    const during = await waitFor('the plan to show facts done while booking runs', async () => {
      const run = await runOf(runId);
      const byId = new Map(run.plan?.subtasks.map((s) => [s.id, s.status]));
      return byId.get('facts') === 'completed' && byId.get('booking') === 'executing' ? run : undefined;
    });
    expect(during.status).toBe('running');
    expect(during.plan!.subtasks.find((s) => s.id === 'summary')!.status).toMatch(/pending|blocked/);
    expect(during.plan!.mermaid).toContain('facts --> summary');
    expect(during.plan!.mermaid).toContain(':::executing');

    const events = runEventsOf(await reading);
    const end = events.at(-1)!;
    expect(end.type).toBe('execution_end');
    expect(events.filter((e) => e.type === 'plan_updated').length).toBeGreaterThan(2);

    const run = await runOf(runId);
    expect(run.status).toBe('completed');
    const plan = run.plan!;
    expect(plan).toMatchObject({
      status: 'completed',
      version: 0,
      replans: 0,
      executionOrder: ['facts', 'booking', 'summary'],
    });
    expect(plan.subtasks.map((s) => [s.id, s.status, s.attempts])).toEqual([
      ['facts', 'completed', 1],
      ['booking', 'completed', 1],
      ['summary', 'completed', 1],
    ]);
    expect(plan.context['facts']).toBe('Research: the sky is blue.');
    expect(plan.context['booking']).toBe('Booked: tuesday-10:00 (booking #1 for this call).');
    // The summary got both results through the shared context ({facts} and {booking} filled in).
    expect(plan.context['summary']).toContain('summarise Research: the sky is blue. and Booked: tuesday-10:00');
    expect((end.data['result'] as { response: string }).response).toContain('Plan done.');

    // Each subtask links to its child run; the two independent ones overlapped, the summary came after both.
    const child = (id: string) =>
      run.children.find((c) => c.runId === plan.subtasks.find((s) => s.id === id)!.childRunIds[0])!;
    const [facts, booking, summary] = [child('facts'), child('booking'), child('summary')];
    expect(booking.role).toBe('booker');
    // The booking subtask names its tool: its child run is held to it; the others have their role's allowlist.
    expect([facts.toolScope, booking.toolScope, summary.toolScope]).toEqual([null, ['book_slot'], null]);
    expect(ms(booking.createdAt)).toBeLessThan(ms(facts.finishedAt));
    expect(ms(facts.finishedAt)).toBeLessThan(ms(booking.finishedAt));
    expect(ms(summary.createdAt)).toBeGreaterThanOrEqual(Math.max(ms(facts.finishedAt), ms(booking.finishedAt)));

    // The planner asked for the plan with structured output: the JSON Schema of the zod plan schema.
    const planner = (await simRequests(platform)).find(
      (r) => r.scenario === 'plan-three' && JSON.stringify(r.body.messages).includes('week one'),
    )!;
    expect((planner.body as { response_format?: unknown }).response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'plan', strict: false, schema: { type: 'object', required: ['subtasks'] } },
    });
    // The transcript: the planner call, each subtask with the child run that did it, the synthesis.
    expect(
      run.transcript.map((e) =>
        e.step === 'subtask'
          ? `${e.step}:${e.subtaskId}`
          : e.step
            ? e.step
            : `${e.plan.call}:${e.plan.outputMode ?? ''}`,
      ),
    ).toEqual(['planner:json_schema', 'subtask:facts', 'subtask:booking', 'subtask:summary', 'synthesis:']);
    expect(run.transcript[0]).toMatchObject({
      view: { stage: 'full', diagnostics: [] },
      model: { model: expect.any(String) },
    });
    for (const entry of run.transcript) {
      if (entry.step !== 'subtask') continue;
      expect(entry).toMatchObject({
        planVersion: 0,
        status: 'completed',
        attempts: 1,
        resultKey: entry.subtaskId,
        role: entry.subtaskId === 'booking' ? 'booker' : 'worker',
      });
      expect(entry.childRunIds).toEqual(plan.subtasks.find((s) => s.id === entry.subtaskId)!.childRunIds);
      const childRun = await runOf(entry.childRunIds[0]!);
      expect(childRun).toMatchObject({ runId: entry.childRunIds[0], status: 'completed' });
    }
  });

  it('asks in text (JSON-in-text) when the provider refuses structured output', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/plan-5/messages', TENANT, {
      content: '[scenario:plan-no-structured-output] text only',
    });
    expect(turn.body.status).toBe('completed');
    expect(turn.body.response).toContain('Plan done in text.');
    const run = await runOf(turn.body.runId);
    expect(run.transcript[0]).toMatchObject({ plan: { call: 'planner', outputMode: 'text_fallback' } });
    expect(run.plan!.subtasks.map((s) => [s.id, s.status])).toEqual([['facts', 'completed']]);
    // Refused with response_format (400), asked again without it.
    const asked = (await simRequests(platform)).filter(
      (r) => r.scenario === 'plan-no-structured-output' && JSON.stringify(r.body.messages).includes('text only'),
    );
    expect(
      asked.slice(0, 2).map((r) => (r.body as { response_format?: { type: string } }).response_format?.type ?? null),
    ).toEqual(['json_schema', null]);
  });

  it('refuses a structured plan that breaks the schema as a format violation and replans', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/plan-6/messages', TENANT, {
      content: '[scenario:plan-invalid-structured] strict job',
    });
    expect(turn.body.status).toBe('completed');
    expect(turn.body.response).toContain('Fixed plan done.');
    const run = await runOf(turn.body.runId);
    expect(run.plan).toMatchObject({ status: 'completed', version: 1, replans: 1 });
    expect(run.plan!.failures).toEqual([
      expect.objectContaining({ class: 'planning', kind: 'format_violation', recovery: 'replan' }),
    ]);
    expect(run.plan!.failures[0]!.message).toMatch(/expectedOutput|priority/);
    expect(run.transcript.map((e) => e.step ?? e.plan.call)).toEqual([
      'planner',
      'replan',
      'planner',
      'subtask',
      'synthesis',
    ]);
    expect(run.transcript[1]).toMatchObject({ step: 'replan', planVersion: 0, failureKind: 'format_violation' });
  });

  it('resumes a plan after the orchestrator is SIGKILLed mid-plan without re-running finished subtasks', async () => {
    const before = new Set(await redis.keys('booking:started:*'));
    const pending = api<Turn>(platform, 'POST', '/v1/conversations/plan-2/messages', TENANT, {
      content: '[scenario:plan-three] crash week',
    });
    const startedKey = await waitFor('the booking to start', async () =>
      (await redis.keys('booking:started:*')).find((k) => !before.has(k)),
    );
    await waitFor('the facts subtask to finish', async () =>
      (await requestsFor('team-research', 'crash week')) > 0 ? true : undefined,
    );
    await platform.kill('orchestrator');
    await platform.start('orchestrator');

    const turn = await pending;
    expect(turn.status).toBe(200);
    expect(turn.body.status).toBe('completed');
    expect(turn.body.response).toContain('Plan done.');
    // Counting: the finished subtask's worker was asked once; the booking happened once.
    expect(await requestsFor('team-research', 'crash week')).toBe(1);
    expect(await redis.get(`booking:done:${startedKey.slice('booking:started:'.length)}`)).toBe('1');
    const run = await runOf(turn.body.runId);
    expect(run.plan!.subtasks.map((s) => [s.id, s.status, s.attempts, s.childRunIds.length])).toEqual([
      ['facts', 'completed', 1, 1],
      ['booking', 'completed', 1, 1],
      ['summary', 'completed', 1, 1],
    ]);
    expect(run.children).toHaveLength(3);
  });

  it('names a cyclic plan, replans, and succeeds with the new plan', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/plan-3/messages', TENANT, {
      content: '[scenario:plan-cycle] circular job',
    });
    expect(turn.body.status).toBe('completed');
    expect(turn.body.response).toContain('Replanned and done.');
    const plan = (await runOf(turn.body.runId)).plan!;
    expect(plan).toMatchObject({ status: 'completed', version: 1, replans: 1 });
    expect(plan.failures).toEqual([
      expect.objectContaining({ class: 'planning', kind: 'cycle', severity: 'high', recovery: 'replan' }),
    ]);
    expect(plan.failures[0]!.message).toMatch(/cycle: (a → b → a|b → a → b)/);
    // The planner was told why its plan was refused.
    const replan = (await simRequests(platform)).filter((r) => r.scenario === 'plan-cycle').at(-2)!;
    expect(JSON.stringify(replan.body.messages)).toContain('the plan was refused: the dependencies form a cycle');
  });

  it('retries a failing subtask, replans past 3 failures (and at once for a critical one), then fails gracefully after 3 replans', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/plan-4/messages', TENANT, {
      content: '[scenario:plan-failing] doomed job',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.status).toBe('failed');
    expect(turn.body.response).toContain('please try a simpler goal');
    const run = await runOf(turn.body.runId);
    expect(run.stopReason).toBe('plan_failed');
    const plan = run.plan!;
    expect(plan).toMatchObject({ status: 'failed', version: 3, replans: 3 });
    // Version 0: three attempts (retry, retry, replan); versions 1-3: the critical subtask replans at once.
    expect(plan.failures.map((f) => [f.subtaskId, f.recovery])).toEqual([
      ['fragile', 'retry'],
      ['fragile', 'retry'],
      ['fragile', 'replan'],
      ['fragile', 'replan'],
      ['fragile', 'replan'],
      ['fragile', 'escalate'],
    ]);
    expect(plan.failures.every((f) => f.class === 'tool' && f.severity !== undefined)).toBe(true);
    expect(run.children).toHaveLength(6);
    expect(run.children.every((c) => c.status === 'failed')).toBe(true);
  });
});

// A newer message while a plan runs (docs/conversations.md, "Plans and delegations"): the plan has
// no loop step to stop at, so the stop settles its children: every live subtask's child run is
// cancelled, and the plan's run ends interrupted (its completed part kept) or rolled back (nothing
// of it in history). The newer message names a plain agent of the tenant (`worker`).
describe('a newer message while a plan runs', () => {
  interface Stored {
    runId: string | null;
    message: { role: string; toolCalls?: Array<{ id: string }>; toolCallId?: string };
  }
  const history = async (conversationId: string): Promise<Stored[]> =>
    (await api<{ messages: Stored[] }>(platform, 'GET', `/v1/conversations/${conversationId}/messages`, TENANT)).body
      .messages;

  /** Starts plan-three in the conversation and waits until its booking subtask's child run is working. */
  async function planWithBookingUnderWay(conversationId: string): Promise<{ runId: string; bookingChild: string }> {
    const before = new Set(await redis.keys('booking:started:*'));
    const response = await postMessageStream(platform, TENANT, conversationId, {
      content: `[scenario:plan-three] ${conversationId}`,
    });
    const runId = response.headers.get('x-run-id') ?? '';
    void readSse(response).catch(() => undefined);
    await waitFor('the booking to start', async () =>
      (await redis.keys('booking:started:*')).find((k) => !before.has(k)),
    );
    const bookingChild = await waitFor(
      "the plan to record the booking's child run",
      async () => (await runOf(runId)).plan?.subtasks.find((s) => s.id === 'booking')?.childRunIds[0],
    );
    return { runId, bookingChild };
  }

  const planEnded = (runId: string): Promise<RunJson> =>
    waitFor('the plan to end', async () => {
      const run = await runOf(runId);
      return run.status === 'running' ? undefined : run;
    });

  const newer = (conversationId: string, multitask: string) =>
    api<Turn>(platform, 'POST', `/v1/conversations/${conversationId}/messages`, TENANT, {
      content: 'What time is it?',
      profile: 'worker',
      multitask,
    });

  it('interrupt: cancels the live subtasks, ends the plan interrupted, then runs the message', async () => {
    const { runId, bookingChild } = await planWithBookingUnderWay('plan-interrupted');
    const turn = await newer('plan-interrupted', 'interrupt');
    expect(turn.body.status).toBe('completed');
    const stopped = await planEnded(runId);
    expect(stopped).toMatchObject({ status: 'completed', stopReason: 'interrupted' });
    expect((await runOf(bookingChild)).status).toBe('cancelled');
    const messages = await history('plan-interrupted');
    expect(messages.filter((m) => m.runId === runId).map((m) => m.message.role)[0]).toBe('user');
    expect(messages.at(-1)).toMatchObject({ runId: turn.body.runId, message: { role: 'assistant' } });
    // No tool call without its one result (the plan's own steps are its children's, not in this history).
    for (const id of messages.flatMap((m) => (m.message.toolCalls ?? []).map((c) => c.id)))
      expect(messages.filter((m) => m.message.toolCallId === id)).toHaveLength(1);
  });

  it('rollback: cancels the live subtasks, and nothing of the plan reaches history', async () => {
    const { runId, bookingChild } = await planWithBookingUnderWay('plan-rolled-back');
    const turn = await newer('plan-rolled-back', 'rollback');
    expect(turn.body.status).toBe('completed');
    const stopped = await planEnded(runId);
    expect(stopped.stopReason).toBe('rolled_back');
    expect((await runOf(bookingChild)).status).toBe('cancelled');
    const messages = await history('plan-rolled-back');
    expect(messages.filter((m) => m.runId === runId)).toEqual([]);
    expect(messages.every((m) => m.runId === turn.body.runId)).toBe(true);
    expect([messages[0]?.message.role, messages.at(-1)?.message.role]).toEqual(['user', 'assistant']);
  });
});
