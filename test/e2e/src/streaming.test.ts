// Run events over SSE: a streamed turn, the replay of a finished run (all of it, or after
// Last-Event-ID), two clients watching one run, and a refusal that never opens a stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMessageStream, readSse, runEventsOf, sseEvents, watchRun, type RunEventEnvelope } from './sse.js';
import { api, bootPlatform, tokenFor, type SuitePlatform } from './support.js';

const TENANT = 'stream-tenant';
const EVENT_NAMES = [
  'execution_start',
  'state_change',
  'message_start',
  'message_chunk',
  'tool_call_args_delta',
  'message_end',
  'tool_call_start',
  'tool_result',
  'iteration_complete',
  'execution_end',
];

interface TurnResult {
  response: string;
  stopReason: string;
  toolCalls: Array<{ callId: string; name: string; status: string; success: boolean }>;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

let platform: SuitePlatform;

beforeAll(async () => {
  platform = await bootPlatform('streaming', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
});
afterAll(async () => {
  await platform?.stop();
});

/** Ids 1, 2, 3... in order, one run, `execution_end` last and only once. */
function expectWellFormedRun(events: readonly RunEventEnvelope[], runId: string): void {
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  for (const event of events) {
    expect(event.runId).toBe(runId);
    expect(typeof event.at).toBe('number');
    expect(event.data).toBeTypeOf('object');
  }
  expect(events.filter((e) => e.type === 'execution_end')).toHaveLength(1);
  expect(events.at(-1)?.type).toBe('execution_end');
}

describe('a turn streamed as server-sent events', () => {
  let runId: string;
  let streamed: RunEventEnvelope[];

  beforeAll(async () => {
    const response = await postMessageStream(platform, TENANT, 'streamed-1', {
      content: '[scenario:calculator] What is 12 * (3 + 4)?',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    runId = response.headers.get('x-run-id') ?? '';
    streamed = runEventsOf(await readSse(response));
  });

  it('sends every event of the run with its per-run number as id and its type as event name', () => {
    expect(runId).toMatch(/^run_/);
    expectWellFormedRun(streamed, runId);
    const types = new Set(streamed.map((e) => e.type));
    for (const name of EVENT_NAMES) expect(types, `event ${name}`).toContain(name);
    expect(streamed[0]?.type).toBe('execution_start');
  });

  it('reports the tool call and its result, and ends with the run result', () => {
    const start = streamed.find((e) => e.type === 'tool_call_start');
    const result = streamed.find((e) => e.type === 'tool_result');
    expect(start?.data).toMatchObject({ name: 'calculator', iteration: 1 });
    expect(result?.data).toMatchObject({ name: 'calculator', callId: start?.data['callId'], status: 'success' });
    expect(streamed.indexOf(start!)).toBeLessThan(streamed.indexOf(result!));

    const end = streamed.at(-1)!.data['result'] as TurnResult;
    expect(end.stopReason).toBe('final_answer');
    expect(end.response).toContain('84');
    expect(end.toolCalls).toEqual([
      expect.objectContaining({ callId: start?.data['callId'], name: 'calculator', status: 'success', success: true }),
    ]);
    expect(end.usage.totalTokens).toBeGreaterThan(0);
  });

  it("streams the tool call's arguments as the model writes them, in order, adding up to the call's arguments", () => {
    const deltas = streamed.filter((e) => e.type === 'tool_call_args_delta');
    const start = streamed.find((e) => e.type === 'tool_call_start')!;
    const end = streamed.find((e) => e.type === 'message_end' && e.data['iteration'] === 1)!;
    // The call appears first (with its id and name), then llm-sim's 5-character pieces.
    expect(deltas[0]?.data).toMatchObject({ iteration: 1, index: 0, callId: start.data['callId'], name: 'calculator' });
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.every((e) => e.data['callId'] === start.data['callId'] && e.data['index'] === 0)).toBe(true);
    expect(deltas.map((e) => e.data['delta']).join('')).toBe(start.data['arguments']);
    // All of them before the model's message ends, and so before the call starts to run.
    expect(streamed.indexOf(deltas.at(-1)!)).toBeLessThan(streamed.indexOf(end));
    const message = end.data['message'] as { toolCalls: Array<{ id: string; arguments: string }> };
    expect(message.toolCalls[0]).toMatchObject({ id: start.data['callId'], arguments: start.data['arguments'] });
  });

  it('streams the model text as chunks that add up to the answer', () => {
    const chunks = streamed.filter((e) => e.type === 'message_chunk');
    expect(chunks.length).toBeGreaterThan(1);
    const end = streamed.at(-1)!.data['result'] as TurnResult;
    expect(chunks.map((e) => e.data['delta']).join('')).toBe(end.response);
  });

  it('voids the text of a model call whose stream broke off: a retrying_model state change comes before the whole message again', async () => {
    const response = await postMessageStream(platform, TENANT, 'streamed-cut', {
      content: '[scenario:stream-cut-once] tell me',
    });
    const events = runEventsOf(await readSse(response));
    const retry = events.findIndex((e) => e.type === 'state_change' && e.data['state'] === 'retrying_model');
    expect(retry).toBeGreaterThan(0);
    const text = (from: number, to: number) =>
      events
        .slice(from, to)
        .filter((e) => e.type === 'message_chunk')
        .map((e) => e.data['delta'])
        .join('');
    expect(text(0, retry)).toBe('The answer,');
    const end = events.at(-1)!.data['result'] as TurnResult;
    expect(text(retry, events.length)).toBe(end.response);
    expect(end.response).toBe('The answer, streamed word by word, arrives whole on the second try.');
  });

  it('keeps the run: GET /v1/runs/{id} has the same result', async () => {
    const run = await api<{ status: string; stopReason: string; result: TurnResult }>(
      platform,
      'GET',
      `/v1/runs/${runId}`,
      TENANT,
    );
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed', stopReason: 'final_answer' });
    expect(run.body.result.response).toBe((streamed.at(-1)!.data['result'] as TurnResult).response);
  });

  it('replays every event of the finished run to a client that watches it later', async () => {
    const response = await watchRun(platform, TENANT, runId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(runEventsOf(await readSse(response))).toEqual(streamed);
  });

  it('sends exactly the events after Last-Event-ID to a client that reconnects', async () => {
    for (const lastSeen of [1, 4, streamed.length - 1]) {
      const response = await watchRun(platform, TENANT, runId, lastSeen);
      expect(response.status).toBe(200);
      expect(runEventsOf(await readSse(response)), `after ${lastSeen}`).toEqual(
        streamed.filter((e) => e.id > lastSeen),
      );
    }
  });

  it('takes the last seen id as ?after= too, for clients that cannot set headers', async () => {
    const response = await fetch(`${platform.apiUrl}/v1/runs/${runId}/events?after=4`, {
      headers: { authorization: `Bearer ${await tokenFor(TENANT)}` },
    });
    expect(response.status).toBe(200);
    expect(runEventsOf(await readSse(response))).toEqual(streamed.filter((e) => e.id > 4));
  });

  it('ends at once for a client that has seen every event', async () => {
    const response = await watchRun(platform, TENANT, runId, streamed.length);
    expect(response.status).toBe(200);
    expect(await readSse(response)).toEqual([]);
  });
});

describe('two clients watching one run', () => {
  it('both receive the same events while it runs', async () => {
    const response = await postMessageStream(platform, TENANT, 'watched-1', {
      content: '[scenario:slow] take your time',
    });
    expect(response.status).toBe(200);
    const runId = response.headers.get('x-run-id') ?? '';
    expect(runId).toMatch(/^run_/);
    const first = readSse(response);

    // The slow model answers after 3 s: the second client joins while the run is still going.
    const during = await api<{ status: string }>(platform, 'GET', `/v1/runs/${runId}`, TENANT);
    expect(during.body.status).toBe('running');
    const watcher = await watchRun(platform, TENANT, runId);
    expect(watcher.status).toBe(200);

    const [posted, watched] = await Promise.all([first.then(runEventsOf), readSse(watcher).then(runEventsOf)]);
    expectWellFormedRun(posted, runId);
    expect(watched).toEqual(posted);
    const end = posted.at(-1)!.data['result'] as TurnResult;
    expect(end).toMatchObject({ stopReason: 'final_answer', response: 'Sorry for the wait: this is the slow answer.' });
  });
});

describe('a client that loses its stream', () => {
  it('does not stop the run, and picks up where it left off with Last-Event-ID', async () => {
    const controller = new AbortController();
    const response = await postMessageStream(
      platform,
      TENANT,
      'reconnect-1',
      { content: '[scenario:slow] take your time' },
      controller.signal,
    );
    expect(response.status).toBe(200);
    const runId = response.headers.get('x-run-id') ?? '';
    const seen: RunEventEnvelope[] = [];
    for await (const event of sseEvents(response)) {
      seen.push(...runEventsOf([event]));
      if (seen.length === 2) break;
    }
    controller.abort();
    expect(seen.map((e) => e.id)).toEqual([1, 2]);

    const rest = runEventsOf(await readSse(await watchRun(platform, TENANT, runId, 2)));
    const all = [...seen, ...rest];
    expectWellFormedRun(all, runId);
    expect(all.at(-1)?.data['result']).toMatchObject({
      stopReason: 'final_answer',
      response: 'Sorry for the wait: this is the slow answer.',
    });
    const run = await api<{ status: string }>(platform, 'GET', `/v1/runs/${runId}`, TENANT);
    expect(run.body.status).toBe('completed');
  });
});

describe('a turn refused before its run starts', () => {
  it('answers with a JSON error, not a stream', async () => {
    const response = await postMessageStream(platform, TENANT, 'refused-1', { content: 'hello', profile: 'nobody' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ error: { code: 'PROFILE_NOT_FOUND' } });
  });

  it('stores nothing for the refused message', async () => {
    const history = await api<{ messages: unknown[] }>(platform, 'GET', '/v1/conversations/refused-1/messages', TENANT);
    expect(history.body.messages).toEqual([]);
  });
});
