// Cancelling a run: `DELETE /v1/runs/{id}` while the model or a tool is working stops the run,
// the waiting client gets a cancelled turn, and the stored history stays closed (every tool call
// has exactly one result). Finished, unknown and other tenants' runs cannot be cancelled.
import { randomUUID } from 'node:crypto';
import { createLogger, createRedis, type Redis } from '@platform/service-kit';
import type { ManagedProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMessageStream, readSse, runEventsOf } from './sse.js';
import { api, bootPlatform, startRunnerProcess, type SuitePlatform, waitFor, waitForCatalog } from './support.js';

const TENANT = 'cancel-tenant';

interface Turn {
  runId: string;
  status: string;
  stopReason: string;
  response: string;
  toolCalls: Array<{ callId: string; name: string; status: string; errorCode?: string }>;
}
interface Run {
  runId: string;
  status: string;
  stopReason: string | null;
  result: { stopReason: string; toolCalls: Array<{ callId: string; status: string }> } | null;
}
interface StoredMessage {
  role: string;
  content?: string | null;
  toolCalls?: Array<{ id: string; name: string }>;
  toolCallId?: string;
  status?: string;
  errorCode?: string;
}

let platform: SuitePlatform;
let runner: ManagedProcess;
let redis: Redis;

beforeAll(async () => {
  platform = await bootPlatform('cancel', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
  runner = await startRunnerProcess(platform, 'run-recording-runner', 'test/e2e/src/fixtures/run-recording-runner.ts');
  await waitForCatalog(platform.apiUrl, ['book_slot']);
  redis = createRedis({
    url: platform.redisUrl,
    name: 'cancel-test',
    logger: createLogger({ service: 'cancel-test', level: 'silent' }),
  });
});
afterAll(async () => {
  redis?.disconnect();
  await runner?.kill();
  await platform?.stop();
});

describe('cancelling a run while the model works', () => {
  it('accepts with 202, and the streamed run ends cancelled', async () => {
    const response = await postMessageStream(platform, TENANT, 'cancel-model-1', {
      content: '[scenario:slow] take your time',
    });
    expect(response.status).toBe(200);
    const runId = response.headers.get('x-run-id') ?? '';
    expect(runId).toMatch(/^run_/);
    const events = readSse(response);

    // The stream opened with the run's first event: it runs, and the slow model answers in 3 s.
    const cancel = await api(platform, 'DELETE', `/v1/runs/${runId}`, TENANT);
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ runId });

    const streamed = runEventsOf(await events);
    const end = streamed.at(-1);
    expect(end?.type).toBe('execution_end');
    expect(end?.data['result']).toMatchObject({ stopReason: 'cancelled' });
    expect(streamed.some((e) => e.type === 'state_change' && e.data['state'] === 'cancelled')).toBe(true);

    const run = await api<Run>(platform, 'GET', `/v1/runs/${runId}`, TENANT);
    expect(run.body).toMatchObject({ runId, status: 'cancelled', stopReason: 'cancelled' });
    // Nothing the model never said is stored as its answer: the turn holds the user message only.
    const history = await api<{ messages: Array<{ message: StoredMessage }> }>(
      platform,
      'GET',
      '/v1/conversations/cancel-model-1/messages',
      TENANT,
    );
    expect(history.body.messages.map((m) => m.message.role)).toEqual(['user']);
  });
});

describe('cancelling a run while a tool works', () => {
  let turn: Turn;
  let runId: string;

  beforeAll(async () => {
    const before = new Set(await redis.keys('in-flight:*'));
    const pending = api<Turn>(platform, 'POST', '/v1/conversations/cancel-tool-1/messages', TENANT, {
      content: '[scenario:slow-booking] book me tuesday at ten',
    });
    // The tool records the run that called it: the turn is in flight and its client still waits.
    const key = await waitFor('the tool call to start', async () =>
      (await redis.keys('in-flight:*')).find((k) => !before.has(k)),
    );
    runId = (await redis.get(key)) ?? '';
    expect(runId).toMatch(/^run_/);
    const cancel = await api(platform, 'DELETE', `/v1/runs/${runId}`, TENANT);
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ runId });
    const answered = await pending;
    expect(answered.status).toBe(200);
    turn = answered.body;
  });

  it('answers the waiting request with a cancelled turn', () => {
    expect(turn).toMatchObject({ runId, status: 'cancelled', stopReason: 'cancelled' });
    expect(turn.toolCalls).toEqual([expect.objectContaining({ name: 'book_slot', status: 'cancelled' })]);
  });

  it('shows the run as cancelled', async () => {
    const run = await api<Run>(platform, 'GET', `/v1/runs/${runId}`, TENANT);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      runId,
      status: 'cancelled',
      stopReason: 'cancelled',
      result: { stopReason: 'cancelled' },
    });
  });

  it('stores the call in flight with exactly one result, a cancelled one', async () => {
    const history = await api<{ messages: Array<{ runId: string; message: StoredMessage }> }>(
      platform,
      'GET',
      '/v1/conversations/cancel-tool-1/messages',
      TENANT,
    );
    const messages = history.body.messages.map((m) => m.message);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(history.body.messages.every((m) => m.runId === runId)).toBe(true);
    const calls = messages.flatMap((m) => m.toolCalls ?? []);
    expect(calls.map((c) => c.name)).toEqual(['book_slot']);
    for (const call of calls) {
      const results = messages.filter((m) => m.role === 'tool' && m.toolCallId === call.id);
      expect(results, `results of ${call.id}`).toHaveLength(1);
      expect(results[0]).toMatchObject({ status: 'cancelled', errorCode: 'CANCELLED' });
    }
    expect(turn.toolCalls.map((c) => c.callId)).toEqual(calls.map((c) => c.id));
  });
});

describe('runs that cannot be cancelled', () => {
  let finishedRunId: string;

  beforeAll(async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/cancel-done-1/messages', TENANT, {
      content: '[scenario:plain] hello',
    });
    expect(turn.status).toBe(200);
    finishedRunId = turn.body.runId;
  });

  it('answers 409 RUN_FINISHED for a finished run, and leaves it as it was', async () => {
    const cancel = await api(platform, 'DELETE', `/v1/runs/${finishedRunId}`, TENANT);
    expect(cancel.status).toBe(409);
    expect(cancel.body).toMatchObject({ error: { code: 'RUN_FINISHED', details: { status: 'completed' } } });
    const run = await api<Run>(platform, 'GET', `/v1/runs/${finishedRunId}`, TENANT);
    expect(run.body).toMatchObject({ status: 'completed', stopReason: 'final_answer' });
  });

  it('answers 404 RUN_NOT_FOUND for an unknown run', async () => {
    const cancel = await api(platform, 'DELETE', `/v1/runs/run_${randomUUID()}`, TENANT);
    expect(cancel.status).toBe(404);
    expect(cancel.body).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });
  });

  it("answers 404 RUN_NOT_FOUND for another tenant's run, finished or running, and does not touch it", async () => {
    const finished = await api(platform, 'DELETE', `/v1/runs/${finishedRunId}`, 'cancel-intruder');
    expect(finished.status).toBe(404);
    expect(finished.body).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });

    const response = await postMessageStream(platform, TENANT, 'cancel-other-1', { content: '[scenario:slow] hello' });
    const runId = response.headers.get('x-run-id') ?? '';
    const events = readSse(response);
    const running = await api(platform, 'DELETE', `/v1/runs/${runId}`, 'cancel-intruder');
    expect(running.status).toBe(404);
    expect(running.body).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });
    // The owner's run goes on to its answer.
    const end = runEventsOf(await events).at(-1);
    expect(end?.data['result']).toMatchObject({ stopReason: 'final_answer' });
    const run = await api<Run>(platform, 'GET', `/v1/runs/${runId}`, TENANT);
    expect(run.body.status).toBe('completed');
  });
});
