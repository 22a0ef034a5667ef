// Steering (docs/conversations.md, "Sending while a run is in flight", `steer`) through the real
// services: a message sent with `multitask: steer` while a run works joins that run before its
// next model call (the model sees it, the run's answer reflects it, history has it once in
// order); the orchestrator SIGKILLed after the steer is recorded and before the run took it; a
// steer with nothing in flight; a steer that comes while the run makes its last model call; the
// orchestrator SIGKILLed after the run took the steer, before the model answered it.
import type { ManagedProcess } from '@platform/testing';
import pg from 'pg';
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

const TENANT = 'steer-tenant';

interface Turn {
  runId: string;
  status: string;
  stopReason: string;
  response: string;
  steered?: boolean;
  messageRunId?: string;
}
interface Stored {
  runId: string | null;
  message: { role: string; content?: string | null; toolCalls?: Array<{ id: string }>; toolCallId?: string };
}
interface SimRequest {
  scenario: string | null;
  stepIndex: number | null;
  turnIndex: number | null;
  status: number | null;
  body: { messages: Array<{ role: string; content: unknown }> };
}

let platform: SuitePlatform;
let runner: ManagedProcess;
let db: pg.Pool;

beforeAll(async () => {
  platform = await bootPlatform('steer', {
    env: {
      orchestrator: FAST_RECOVERY,
    },
  });
  runner = await startRunnerProcess(platform, 'booking-runner', 'test/e2e/src/fixtures/booking-runner.ts');
  await waitForCatalog(platform.apiUrl, ['book_slot']);
  db = new pg.Pool({ connectionString: platform.databaseUrl, max: 2 });
});
afterAll(async () => {
  await db?.end();
  await runner?.kill();
  await platform?.stop();
});

const text = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content));

/** llm-sim's requests of a conversation (its first message names it), oldest first. */
async function modelRequests(conversationId: string): Promise<SimRequest[]> {
  const { requests } = (await (await fetch(`${platform.llmSimUrl}/_sim/requests`)).json()) as {
    requests: SimRequest[];
  };
  return requests.filter(
    (r) =>
      r.scenario === 'steer-booking' && r.body.messages.some((m) => text(m.content).includes(`(${conversationId})`)),
  );
}

/** Starts a slow booking (streamed: its run id is known at once) and waits until the model asked for the tool. */
async function startBooking(conversationId: string) {
  const response = await postMessageStream(platform, TENANT, conversationId, {
    content: `[scenario:steer-booking] book me tuesday at ten (${conversationId})`,
  });
  expect(response.status).toBe(200);
  const runId = response.headers.get('x-run-id') ?? '';
  const events = readSse(response).then(runEventsOf);
  events.catch(() => undefined); // read by the tests that keep the orchestrator alive
  await waitFor('the model to ask for the booking', async () =>
    (await modelRequests(conversationId)).find((r) => r.stepIndex === 0 && r.status === 200),
  );
  return { runId, events };
}

const send = (conversationId: string, content: string, multitask = 'steer') =>
  api<Turn>(platform, 'POST', `/v1/conversations/${conversationId}/messages`, TENANT, { content, multitask });

async function history(conversationId: string): Promise<Stored[]> {
  const page = await api<{ messages: Stored[] }>(
    platform,
    'GET',
    `/v1/conversations/${conversationId}/messages`,
    TENANT,
  );
  return page.body.messages;
}

/** The message's own run as Postgres keeps it: the run it steers and where it joined. */
async function steerRow(conversationId: string, content: string) {
  const { rows } = await db.query<{ run_id: string; status: string; steers: string | null; steered_at: number | null }>(
    'SELECT run_id, status, steers, steered_at FROM orchestrator.runs WHERE tenant_id = $1 AND conversation_id = $2 AND content = $3',
    [TENANT, conversationId, content],
  );
  return rows;
}

/** Waits until the steering message's row is as `until` says (recorded, taken), and returns it. */
function steerRowWhen(
  conversationId: string,
  content: string,
  what: string,
  until: (row: Awaited<ReturnType<typeof steerRow>>[number]) => boolean,
) {
  return waitFor(what, async () => {
    const [row] = await steerRow(conversationId, content);
    return row && until(row) ? row : undefined;
  });
}

/** The booking, the steer and the answer that quotes it: each once, in order, all the joined run's. */
function expectJoined(messages: readonly Stored[], runId: string, steer: string): void {
  expect(messages.map((m) => m.message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
  expect(messages[2]?.message.toolCallId).toBe(messages[1]?.message.toolCalls?.[0]?.id);
  expect(messages[3]?.message.content).toBe(steer);
  expect(messages.every((m) => m.runId === runId)).toBe(true);
  expect(messages.filter((m) => m.message.content === steer)).toHaveLength(1);
}

describe('steer', () => {
  it("joins the running run before its next model call: the model sees it, the run's answer reflects it", async () => {
    const first = await startBooking('st-join');
    const steer = 'make it a window table';
    const turn = await send('st-join', steer);
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({
      runId: first.runId,
      status: 'completed',
      stopReason: 'final_answer',
      steered: true,
    });
    expect(turn.body.response).toContain(`noted: ${steer}`);
    const own = await api<{ status: string; stopReason: string }>(
      platform,
      'GET',
      `/v1/runs/${turn.body.messageRunId}`,
      TENANT,
    );
    expect(own.body).toMatchObject({ status: 'completed', stopReason: 'steered' });
    // The model's call after the booking had the steer as its last message, after the tool's result.
    const second = (await modelRequests('st-join')).find((r) => r.turnIndex === 1);
    expect(second?.body.messages.slice(-3).map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
    expect(second?.body.messages.at(-1)?.content).toBe(steer);
    expect((await first.events).at(-1)?.data['result']).toMatchObject({ stopReason: 'final_answer' });
    expectJoined(await history('st-join'), first.runId, steer);
    expect(await steerRow('st-join', steer)).toEqual([
      { run_id: turn.body.messageRunId, status: 'completed', steers: first.runId, steered_at: 2 },
    ]);
  });

  it('runs as a normal message when nothing is in flight', async () => {
    const turn = await send('st-idle', '[scenario:plain] hello');
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ status: 'completed', stopReason: 'final_answer' });
    expect(turn.body.steered).toBeUndefined();
    expect((await history('st-idle')).map((m) => [m.message.role, m.runId])).toEqual([
      ['user', turn.body.runId],
      ['assistant', turn.body.runId],
    ]);
  });

  it('runs as its own turn after the run when it comes during the run’s last model call', async () => {
    const first = await startBooking('st-late');
    await waitFor('the last model call to be under way', async () =>
      (await modelRequests('st-late')).find((r) => r.stepIndex === 1 && r.status === null),
    );
    const steer = 'and bring flowers';
    const turn = await send('st-late', steer);
    expect(turn.status).toBe(200);
    expect(turn.body.steered).toBeUndefined();
    expect(turn.body.runId).not.toBe(first.runId);
    expect(turn.body.response).toContain(`noted: ${steer}`);
    expect((await first.events).at(-1)?.data['result']).toMatchObject({ stopReason: 'final_answer' });
    const messages = await history('st-late');
    expect(messages.map((m) => [m.message.role, m.runId])).toEqual([
      ['user', first.runId],
      ['assistant', first.runId],
      ['tool', first.runId],
      ['assistant', first.runId],
      ['user', turn.body.runId],
      ['assistant', turn.body.runId],
    ]);
    expect(await steerRow('st-late', steer)).toEqual([
      { run_id: turn.body.runId, status: 'completed', steers: first.runId, steered_at: null },
    ]);
  });
});

describe('an orchestrator SIGKILLed during a steer', () => {
  it('before the run took it: the resumed run takes it at its next model call; in history once, in order', async () => {
    const first = await startBooking('st-kill');
    const steer = 'make it for four people';
    const pending = send('st-kill', steer);
    const recorded = await steerRowWhen('st-kill', steer, 'the steer to be recorded', (row) => row.steers !== null);
    expect(recorded).toMatchObject({ status: 'queued', steers: first.runId, steered_at: null });
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    const turn = await pending;
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ runId: first.runId, status: 'completed', steered: true });
    expect(turn.body.response).toContain(`noted: ${steer}`);
    expectJoined(await history('st-kill'), first.runId, steer);
    expect(await steerRow('st-kill', steer)).toEqual([
      { run_id: recorded.run_id, status: 'completed', steers: first.runId, steered_at: 2 },
    ]);
  });

  it('after the run took it: the resumed run replays it at the same place from Postgres, once', async () => {
    const first = await startBooking('st-kill-taken');
    const steer = 'make it for five people';
    const pending = send('st-kill-taken', steer);
    const taken = await steerRowWhen('st-kill-taken', steer, 'the steer to be taken', (row) => row.steered_at !== null);
    // Taken before the model call that answers it (llm-sim holds that call 2 s).
    expect(taken).toMatchObject({ status: 'completed', steers: first.runId, steered_at: 2 });
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    const turn = await pending;
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ runId: first.runId, status: 'completed', steered: true });
    expect(turn.body.response).toContain(`noted: ${steer}`);
    expectJoined(await history('st-kill-taken'), first.runId, steer);
    expect(await steerRow('st-kill-taken', steer)).toEqual([taken]);
  });
});
