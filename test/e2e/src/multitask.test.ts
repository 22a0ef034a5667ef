// Sending while a run is in flight (docs/conversations.md): `reject`, `interrupt` and `rollback`
// through the real services, and the orchestrator SIGKILLed at each point of an interrupt and of a
// rollback (while the run in flight finishes its step, and while the newer message's run works):
// every time, the history holds each tool call with exactly one result, the interrupted run's
// completed steps once, nothing of a rolled-back run, and the newer message.
import { createLogger, createRedis, type Redis } from '@platform/service-kit';
import type { ManagedProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMessageStream, readSse, runEventsOf } from './sse.js';
import {
  FAST_RECOVERY,
  api,
  bootPlatform,
  startRunnerProcess,
  type SuitePlatform,
  waitFor,
  waitForCatalog,
} from './support.js';

const TENANT = 'multitask-tenant';
const INTERRUPTED =
  'This request was interrupted by a newer message before it finished; the steps above are what it completed.';

interface Turn {
  runId: string;
  status: string;
  stopReason: string;
  response: string;
}
interface Run {
  runId: string;
  status: string;
  stopReason: string | null;
  stopRequested?: string | null;
  stoppedBy?: string | null;
  result: { toolCalls: Array<{ callId: string; status: string }> } | null;
}
interface Stored {
  runId: string | null;
  message: { role: string; content?: string | null; toolCalls?: Array<{ id: string }>; toolCallId?: string };
}

let platform: SuitePlatform;
let runner: ManagedProcess;
let redis: Redis;

beforeAll(async () => {
  platform = await bootPlatform('multitask', {
    env: {
      orchestrator: FAST_RECOVERY,
    },
  });
  runner = await startRunnerProcess(platform, 'booking-runner', 'test/e2e/src/fixtures/booking-runner.ts');
  await waitForCatalog(platform.apiUrl, ['book_slot']);
  redis = createRedis({
    url: platform.redisUrl,
    name: 'multitask-test',
    logger: createLogger({ service: 'multitask-test', level: 'silent' }),
  });
});
afterAll(async () => {
  redis?.disconnect();
  await runner?.kill();
  await platform?.stop();
});

/** Resolves once a booking not in `seen` started (the run's step is in progress); adds it to `seen`. */
async function bookingStarted(seen: Set<string>): Promise<string> {
  const key = await waitFor('a booking to start', async () =>
    (await redis.keys('booking:started:*')).find((k) => !seen.has(k)),
  );
  seen.add(key);
  return key;
}

/** Starts a slow booking in `conversationId` (streamed, so its run id is known at once) and waits for its tool call to run. */
async function startBooking(conversationId: string, seen: Set<string>) {
  for (const key of await redis.keys('booking:started:*')) seen.add(key);
  // Its own wording: llm-sim derives call ids from the conversation, and the booking keys use them.
  const response = await postMessageStream(platform, TENANT, conversationId, {
    content: `[scenario:slow-booking] book me tuesday at ten (${conversationId})`,
  });
  expect(response.status).toBe(200);
  const runId = response.headers.get('x-run-id') ?? '';
  const events = readSse(response).then(runEventsOf);
  events.catch(() => undefined); // read by the tests that keep the orchestrator alive
  const startedKey = await bookingStarted(seen);
  return { runId, events, startedKey };
}

const send = (conversationId: string, content: string, multitask: string) =>
  api<Turn & { error?: { code: string; details?: Record<string, unknown> } }>(
    platform,
    'POST',
    `/v1/conversations/${conversationId}/messages`,
    TENANT,
    { content, multitask },
  );

const getRun = async (runId: string) => (await api<Run>(platform, 'GET', `/v1/runs/${runId}`, TENANT)).body;

async function history(conversationId: string): Promise<Stored[]> {
  const page = await api<{ messages: Stored[] }>(
    platform,
    'GET',
    `/v1/conversations/${conversationId}/messages`,
    TENANT,
  );
  return page.body.messages;
}

/** Closure: every tool call in the history has exactly one result, right after its assistant message. */
function expectClosed(messages: readonly Stored[]): void {
  messages.forEach((stored, index) => {
    const ids = (stored.message.toolCalls ?? []).map((c) => c.id);
    if (!ids.length) return;
    const following = messages.slice(index + 1, index + 1 + ids.length);
    expect(following.map((m) => [m.message.role, m.message.toolCallId])).toEqual(ids.map((id) => ['tool', id]));
    for (const id of ids) expect(messages.filter((m) => m.message.toolCallId === id)).toHaveLength(1);
  });
}

/** An interrupted booking, then the newer message's answer: each run's messages once, in order. */
function expectInterruptedThenAnswered(messages: readonly Stored[], interrupted: string, newer: string): void {
  expectClosed(messages);
  const roles = messages.map((m) => m.message.role);
  expect(roles.slice(0, 4)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  expect(messages[3]?.message.content).toBe(INTERRUPTED);
  expect(messages.slice(0, 4).every((m) => m.runId === interrupted)).toBe(true);
  expect(messages[4]?.message.role).toBe('user');
  expect(messages.slice(4).every((m) => m.runId === newer)).toBe(true);
  expect(roles.at(-1)).toBe('assistant');
}

describe('reject', () => {
  it('refuses the second message with 409 RUN_IN_PROGRESS naming the run in flight; that run goes on', async () => {
    const first = await startBooking('mt-reject', new Set());
    const refused = await send('mt-reject', '[scenario:plain] are you done?', 'reject');
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'RUN_IN_PROGRESS', details: { runId: first.runId } });
    expect((await first.events).at(-1)?.data['result']).toMatchObject({ stopReason: 'final_answer' });
    expect((await history('mt-reject')).map((m) => m.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('runs the message when nothing is in flight', async () => {
    const turn = await send('mt-reject-idle', '[scenario:plain] hello', 'reject');
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ status: 'completed', stopReason: 'final_answer' });
  });

  it('refuses a policy that does not exist', async () => {
    const turn = await send('mt-reject-idle', '[scenario:plain] hello', 'shout');
    expect(turn.status).toBe(400);
    expect(turn.body.error?.code).toBe('INVALID_BODY');
  });
});

describe('interrupt', () => {
  it('stops the run after its step in progress, keeps that step marked interrupted, then runs the message with it', async () => {
    const first = await startBooking('mt-interrupt', new Set());
    const turn = await send('mt-interrupt', '[scenario:plain] make it wednesday', 'interrupt');
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ status: 'completed', stopReason: 'final_answer' });
    const run = await getRun(first.runId);
    expect(run).toMatchObject({
      status: 'completed',
      stopReason: 'interrupted',
      stopRequested: 'interrupt',
      stoppedBy: turn.body.runId,
    });
    // The step in progress finished: its booking has its real result, not a synthetic one.
    expect(run.result?.toolCalls.map((c) => c.status)).toEqual(['success']);
    expect((await first.events).at(-1)?.data['result']).toMatchObject({ stopReason: 'interrupted' });
    expectInterruptedThenAnswered(await history('mt-interrupt'), first.runId, turn.body.runId);
  });
});

describe('rollback', () => {
  it('cancels the run and keeps nothing of it in history, its user message included', async () => {
    const first = await startBooking('mt-rollback', new Set());
    const turn = await send('mt-rollback', '[scenario:plain] forget that, just say hi', 'rollback');
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ status: 'completed', stopReason: 'final_answer' });
    expect(await getRun(first.runId)).toMatchObject({
      status: 'cancelled',
      stopReason: 'rolled_back',
      stopRequested: 'rollback',
      stoppedBy: turn.body.runId,
    });
    expect((await first.events).at(-1)?.data['result']).toMatchObject({ stopReason: 'rolled_back' });
    const messages = await history('mt-rollback');
    expect(messages.map((m) => m.message.role)).toEqual(['user', 'assistant']);
    expect(messages.every((m) => m.runId === turn.body.runId)).toBe(true);
  });
});

describe('an orchestrator SIGKILLed during an interrupt', () => {
  it('while the interrupted run finishes its step: it resumes, stops at the boundary, and the message runs', async () => {
    const seen = new Set<string>();
    const first = await startBooking('mt-kill-interrupt-1', seen);
    const pending = send('mt-kill-interrupt-1', '[scenario:plain] make it wednesday', 'interrupt');
    await waitFor('the interrupt to be recorded', async () => (await getRun(first.runId)).stopRequested ?? undefined);
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    const turn = await pending;
    expect(turn.status).toBe(200);
    expect(await getRun(first.runId)).toMatchObject({ stopReason: 'interrupted', stoppedBy: turn.body.runId });
    expectInterruptedThenAnswered(await history('mt-kill-interrupt-1'), first.runId, turn.body.runId);
    // The resumed step re-sent its call under the same id: booked once.
    const callId = first.startedKey.slice('booking:started:'.length);
    expect(await redis.get(`booking:done:${callId}`)).toBe('1');
  });

  it("while the newer message's run works: the interrupted run's history stays as it was, the newer one completes once", async () => {
    const seen = new Set<string>();
    const first = await startBooking('mt-kill-interrupt-2', seen);
    const pending = send(
      'mt-kill-interrupt-2',
      '[scenario:slow-booking] book wednesday instead (interrupting)',
      'interrupt',
    );
    await bookingStarted(seen); // the newer message's own booking: the interrupted run has ended
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    const turn = await pending;
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ status: 'completed' });
    expect(await getRun(first.runId)).toMatchObject({ stopReason: 'interrupted' });
    expectInterruptedThenAnswered(await history('mt-kill-interrupt-2'), first.runId, turn.body.runId);
  });
});

describe('an orchestrator SIGKILLed during a rollback', () => {
  it('while the rolled-back run is in its step: nothing of it reaches history, the message runs', async () => {
    const first = await startBooking('mt-kill-rollback-1', new Set());
    const pending = send('mt-kill-rollback-1', '[scenario:plain] forget that', 'rollback');
    await waitFor('the rollback to be recorded', async () => (await getRun(first.runId)).stopRequested ?? undefined);
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    const turn = await pending;
    expect(turn.status).toBe(200);
    expect(await getRun(first.runId)).toMatchObject({ status: 'cancelled', stopReason: 'rolled_back' });
    const messages = await history('mt-kill-rollback-1');
    expect(messages.map((m) => m.message.role)).toEqual(['user', 'assistant']);
    expect(messages.every((m) => m.runId === turn.body.runId)).toBe(true);
  });

  it("while the newer message's run works: still nothing of the rolled-back run, the newer one completes once", async () => {
    const seen = new Set<string>();
    const first = await startBooking('mt-kill-rollback-2', seen);
    const pending = send(
      'mt-kill-rollback-2',
      '[scenario:slow-booking] book wednesday instead (rolling back)',
      'rollback',
    );
    await bookingStarted(seen);
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    const turn = await pending;
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ status: 'completed' });
    expect(await getRun(first.runId)).toMatchObject({ stopReason: 'rolled_back' });
    const messages = await history('mt-kill-rollback-2');
    expectClosed(messages);
    expect(messages.map((m) => m.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(messages.every((m) => m.runId === turn.body.runId)).toBe(true);
  });
});
