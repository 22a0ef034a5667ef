// Durable turns: an orchestrator killed mid-turn is replaced, the run resumes from its journal,
// the caller still gets the answer, and the external side effect happened exactly once.
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

interface Turn {
  runId: string;
  status: string;
  response: string;
  toolCalls: Array<{ callId: string; name: string; status: string }>;
}

let platform: SuitePlatform;
let runner: ManagedProcess;
let redis: Redis;
const logger = createLogger({ service: 'durable-test', level: 'silent' });

beforeAll(async () => {
  platform = await bootPlatform('durable', {
    env: {
      orchestrator: FAST_RECOVERY,
    },
  });
  runner = await startRunnerProcess(platform, 'booking-runner', 'test/e2e/src/fixtures/booking-runner.ts');
  await waitForCatalog(platform.apiUrl, ['book_slot']);
  redis = createRedis({ url: platform.redisUrl, name: 'durable-test', logger });
});
afterAll(async () => {
  redis?.disconnect();
  await runner?.kill();
  await platform?.stop();
});

describe('an orchestrator killed mid-turn', () => {
  it('is replaced, the run resumes from its journal, and the caller gets the answer with the side effect done once', async () => {
    const pending = api<Turn>(platform, 'POST', '/v1/conversations/durable-1/messages', 'durable-tenant', {
      content: '[scenario:slow-booking] book me tuesday at ten',
    });
    // The booking is under way (the tool sleeps 3 s): kill the orchestrator now, mid-call.
    const startedKey = await waitFor('the booking to start', async () => (await redis.keys('booking:started:*'))[0]);
    await platform.kill('orchestrator');
    await platform.start('orchestrator');

    const turn = await pending;
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({
      status: 'completed',
      response: 'Booked: tuesday-10:00 (booking #1 for this call).',
    });
    const callId = startedKey.slice('booking:started:'.length);
    expect(turn.body.toolCalls).toEqual([expect.objectContaining({ callId, name: 'book_slot', status: 'success' })]);
    // Exactly one booking: the resumed run re-sent the call with the same id and the runner deduped it.
    expect(await redis.keys('booking:done:*')).toEqual([`booking:done:${callId}`]);
    expect(await redis.get(`booking:done:${callId}`)).toBe('1');

    const history = await api<{ messages: Array<{ message: { role: string; toolCallId?: string } }> }>(
      platform,
      'GET',
      '/v1/conversations/durable-1/messages',
      'durable-tenant',
    );
    expect(history.body.messages.map((m) => m.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const run = await api<{ status: string; transcript: unknown[] }>(
      platform,
      'GET',
      `/v1/runs/${turn.body.runId}`,
      'durable-tenant',
    );
    expect(run.body.status).toBe('completed');
    expect(run.body.transcript).toHaveLength(2);
  });

  it('hands a run over on SIGTERM when it outlasts the grace: a clean exit, the caller gets the answer, the side effect happened once', async () => {
    const before = new Set(await redis.keys('booking:started:*'));
    const pending = api<Turn>(platform, 'POST', '/v1/conversations/durable-term/messages', 'durable-tenant', {
      content: '[scenario:slow-booking] book it, we are deploying',
    });
    const startedKey = await waitFor('the booking to start', async () =>
      (await redis.keys('booking:started:*')).find((k) => !before.has(k)),
    );
    // A rolling deploy: SIGTERM while the 3 s booking runs, with a 500 ms grace.
    const stopping = platform.process('orchestrator')!.process;
    const exited = stopping.waitForExit();
    await platform.stopApp('orchestrator', 20_000);
    expect(await exited).toBe(0);
    expect(stopping.recentOutput).toContain('handed over');
    await platform.start('orchestrator');

    const turn = await pending;
    expect(turn.body).toMatchObject({
      status: 'completed',
      response: 'Booked: tuesday-10:00 (booking #1 for this call).',
    });
    const callId = startedKey.slice('booking:started:'.length);
    expect(await redis.get(`booking:done:${callId}`)).toBe('1');
  });

  it('resumes a run nobody waits for any more (the caller gave up) through the recovery sweep', async () => {
    const controller = new AbortController();
    const before = new Set(await redis.keys('booking:started:*'));
    const request = api(
      platform,
      'POST',
      '/v1/conversations/durable-2/messages',
      'durable-tenant',
      { content: '[scenario:slow-booking] book me' },
      controller.signal,
    ).catch(() => undefined);
    const startedKey = await waitFor('the booking to start', async () =>
      (await redis.keys('booking:started:*')).find((k) => !before.has(k)),
    );
    controller.abort();
    await request;
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    const callId = startedKey.slice('booking:started:'.length);
    // Nobody attaches: the new orchestrator's sweep finds the run and finishes it.
    const history = await waitFor('the resumed run to be stored', async () => {
      const page = await api<{ messages: Array<{ message: { role: string; content?: string } }> }>(
        platform,
        'GET',
        '/v1/conversations/durable-2/messages',
        'durable-tenant',
      );
      return page.body.messages.length === 4 ? page.body.messages : undefined;
    });
    expect(history.at(-1)?.message.content).toBe('Booked: tuesday-10:00 (booking #1 for this call).');
    expect(await redis.get(`booking:done:${callId}`)).toBe('1');
  });

  it("keeps streaming to an SSE client across the crash: the resumed run's events arrive and end the stream", async () => {
    const before = new Set(await redis.keys('booking:started:*'));
    // Its own wording: llm-sim derives call ids from the conversation, and the booking keys use them.
    const response = await postMessageStream(platform, 'durable-tenant', 'durable-3', {
      content: '[scenario:slow-booking] book me a slot, streaming',
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reading = readSse(response);
    const startedKey = await waitFor('the booking to start', async () =>
      (await redis.keys('booking:started:*')).find((k) => !before.has(k)),
    );
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    const events = runEventsOf(await reading);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1)); // no gap, no repeat across the crash
    expect(events.some((e) => e.type === 'state_change' && e.data['reason'] === 'resumed')).toBe(true);
    const end = events.at(-1)!;
    expect(end.type).toBe('execution_end');
    expect((end.data['result'] as { response: string }).response).toBe(
      'Booked: tuesday-10:00 (booking #1 for this call).',
    );
    expect(await redis.get(`booking:done:${startedKey.slice('booking:started:'.length)}`)).toBe('1');
  });
});
