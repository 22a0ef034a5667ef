import { setTimeout as sleep } from 'node:timers/promises';
import { APIUserAbortError, AuthenticationError, NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from './request-log.js';
import { startSim, type RunningSim } from './test-support/sim.js';

let sim: RunningSim;

beforeAll(async () => {
  sim = await startSim({
    apiKey: 'sk-right',
    models: ['sim-1', 'sim-large'],
    requestLogSize: 3,
    captureLogs: true,
    scenarios: [{ name: 'slow-stream', steps: [{ content: 'one two three four five six', chunkDelayMs: 200 }] }],
  });
});
afterAll(() => sim.close());

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-right', ...headers },
    body,
  });
const requestLog = async () =>
  ((await (await fetch(`${sim.url}/_sim/requests`)).json()) as { requests: RequestLogEntry[] }).requests;

describe('server', () => {
  it('answers health checks without auth', async () => {
    const response = await fetch(`${sim.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('lists and retrieves the configured models', async () => {
    const client = sim.client({ apiKey: 'sk-right' });
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((m) => [m.id, m.object, m.owned_by])).toEqual([
      ['sim-1', 'model', 'llm-sim'],
      ['sim-large', 'model', 'llm-sim'],
      ['sim-embed-1', 'model', 'llm-sim'],
    ]);
    expect((await client.models.retrieve('sim-large')).id).toBe('sim-large');
    expect(await client.models.retrieve('gpt-nope').catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
  });

  it('rejects an unknown model with 404 model_not_found', async () => {
    const error = await sim
      .client({ apiKey: 'sk-right' })
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe('model_not_found');
    expect((error as NotFoundError).message).toContain('The model `gpt-4o` does not exist');
  });

  it('requires a bearer token equal to the configured key', async () => {
    const wrong = await sim
      .client({ apiKey: 'sk-wrong-key-123456' })
      .models.list()
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(AuthenticationError);
    expect((wrong as AuthenticationError).code).toBe('invalid_api_key');
    expect((wrong as AuthenticationError).type).toBe('invalid_request_error');
    expect((wrong as AuthenticationError).message).not.toContain('sk-wrong-key-123456');

    const missing = await fetch(`${sim.url}/v1/models`);
    expect(missing.status).toBe(401);
    const missingBody = (await missing.json()) as { error: Record<string, unknown> };
    expect(missingBody.error).toMatchObject({ type: 'invalid_request_error', param: null, code: 'invalid_api_key' });
    expect(missingBody.error.message).toMatch(/You didn't provide an API key/);
  });

  it('rejects malformed JSON and schema violations with 400 in OpenAI shape', async () => {
    const malformed = await post('/v1/chat/completions', '{"model": "sim-1", "messages": [');
    expect(malformed.status).toBe(400);
    const malformedBody = (await malformed.json()) as { error: Record<string, unknown> };
    expect(malformedBody.error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
    expect(malformedBody.error.message).toMatch(/could not parse the JSON body/);

    const noMessages = await post('/v1/chat/completions', JSON.stringify({ model: 'sim-1' }));
    expect(noMessages.status).toBe(400);
    const noMessagesBody = (await noMessages.json()) as { error: Record<string, unknown> };
    expect(noMessagesBody.error).toMatchObject({ type: 'invalid_request_error', param: 'messages', code: null });
    expect(noMessagesBody.error.message).toMatch(/^Invalid request body: messages: /);

    const badRole = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'sim-1', messages: [{ role: 'robot', content: 'x' }] }),
    );
    expect(badRole.status).toBe(400);
    expect(((await badRole.json()) as { error: { param: string } }).error.param).toBe('messages.0.role');

    const empty = await post('/v1/chat/completions', '');
    expect(empty.status).toBe(400);

    // As the real API: an assistant message without content needs tool calls.
    const contentless = await post(
      '/v1/chat/completions',
      JSON.stringify({
        model: 'sim-1',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null },
          { role: 'user', content: 'again' },
        ],
      }),
    );
    expect(contentless.status).toBe(400);
    expect(((await contentless.json()) as { error: { param: string; message: string } }).error).toMatchObject({
      param: 'messages.1.content',
      message: expect.stringContaining("Invalid value for 'content'"),
    });
  });

  it('answers unknown routes with a 404 in OpenAI shape', async () => {
    const response = await fetch(`${sim.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-right' },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { message: 'Invalid URL (POST /v1/completions)' } });
  });

  it('keeps the last N requests for inspection and clears them on reset', async () => {
    await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    for (const text of ['a', 'b', 'c', 'd']) {
      await post(
        '/v1/chat/completions',
        JSON.stringify({ model: 'sim-1', messages: [{ role: 'user', content: `[scenario:plain] ${text}` }] }),
      );
    }
    const entries = await requestLog();
    expect(entries.map((e) => [e.seq, e.scenario, e.stepIndex, e.status])).toEqual([
      [2, 'plain', 0, 200],
      [3, 'plain', 0, 200],
      [4, 'plain', 0, 200],
    ]);
    expect(entries[2]!.body).toEqual({ model: 'sim-1', messages: [{ role: 'user', content: '[scenario:plain] d' }] });
    expect((await fetch(`${sim.url}/_sim/reset`, { method: 'POST' })).status).toBe(200);
    expect(await requestLog()).toEqual([]);
  });

  it('survives a client disconnecting during a delay', async () => {
    await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    const controller = new AbortController();
    const pending = sim
      .client({ apiKey: 'sk-right' })
      .chat.completions.create(
        { model: 'sim-1', messages: [{ role: 'user', content: '[scenario:slow] hi' }] },
        { signal: controller.signal },
      );
    await sleep(150);
    controller.abort();
    expect(await pending.catch((e: unknown) => e)).toBeInstanceOf(APIUserAbortError);
    await sleep(50);
    expect((await requestLog()).map((e) => [e.scenario, e.status])).toEqual([['slow', 499]]);
    expect(sim.logs.some((line) => line.msg === 'client disconnected during delay')).toBe(true);
    expect((await fetch(`${sim.url}/healthz`)).status).toBe(200);
    expect(sim.logs.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);
  });

  it('survives a client disconnecting mid-stream', async () => {
    await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    const controller = new AbortController();
    const stream = await sim
      .client({ apiKey: 'sk-right' })
      .chat.completions.create(
        { model: 'sim-1', messages: [{ role: 'user', content: '[scenario:slow-stream] hi' }], stream: true },
        { signal: controller.signal },
      );
    const received: string[] = [];
    const reading = (async () => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    await sleep(300);
    controller.abort();
    await reading;
    expect(received.length).toBeLessThan(5);
    await sleep(300);
    expect((await requestLog()).map((e) => e.status)).toEqual([499]);
    expect((await fetch(`${sim.url}/healthz`)).status).toBe(200);
    expect(sim.logs.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);
  });
});
