import http from 'node:http';
import { InternalServerError, RateLimitError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from './test-support/sim.js';

let sim: RunningSim;

beforeAll(async () => {
  sim = await startSim({ scenarios: [{ name: 'hello', steps: [{ content: 'hello there' }] }] });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async () => {
  await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
});

const openWindow = (body: unknown) =>
  fetch(`${sim.url}/_sim/fault-window`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const ask = (signal?: AbortSignal) =>
  sim
    .client({ maxRetries: 0 })
    .chat.completions.create(
      { model: 'sim-1', messages: [{ role: 'user', content: '[scenario:hello] hi' }] },
      signal ? { signal } : {},
    );
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
const logged = async () =>
  ((await (await fetch(`${sim.url}/_sim/requests`)).json()) as { requests: unknown[] }).requests.length;
/** Waits until llm-sim has logged `count` requests since the last reset (a condition, not a timing guess). */
async function untilLogged(count: number): Promise<void> {
  for (let i = 0; i < 500 && (await logged()) < count; i++) await new Promise((r) => setTimeout(r, 20));
}
const lastLogged = async () =>
  (
    (await (await fetch(`${sim.url}/_sim/requests`)).json()) as {
      requests: Array<{ fault: string | null; status: number | null }>;
    }
  ).requests.at(-1);

describe('a fault window', () => {
  it('answers every completion with a 500 while open, and normally once closed', async () => {
    expect((await openWindow({ kind: 'server_error', durationMs: 60_000 })).status).toBe(200);
    expect(await failure(ask())).toBeInstanceOf(InternalServerError);
    expect(await failure(ask())).toBeInstanceOf(InternalServerError);
    expect(await lastLogged()).toMatchObject({ fault: 'server_error', status: 500 });
    await fetch(`${sim.url}/_sim/fault-window`, { method: 'DELETE' });
    expect((await ask()).choices[0]!.message.content).toBe('hello there');
  });

  it('answers 429 with the retry-after asked for', async () => {
    await openWindow({ kind: 'rate_limit', durationMs: 60_000, retryAfterSeconds: 3 });
    const error = await failure(ask());
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).headers.get('retry-after')).toBe('3');
  });

  it('holds requests unanswered while hanging and answers them when the window closes', async () => {
    await openWindow({ kind: 'hang', durationMs: 60_000 });
    let answered = false;
    const held = ask().then((reply) => {
      answered = true;
      return reply;
    });
    await untilLogged(1);
    expect(answered).toBe(false);
    await fetch(`${sim.url}/_sim/fault-window`, { method: 'DELETE' });
    expect((await held).choices[0]!.message.content).toBe('hello there');
  });

  it('lets a client that gives up on a hung request go', async () => {
    await openWindow({ kind: 'hang', durationMs: 60_000 });
    // Its own connection (no keep-alive pool), dropped as a client that times out would.
    const request = http.request(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-key' },
    });
    request.on('error', () => undefined);
    request.end(JSON.stringify({ model: 'sim-1', messages: [{ role: 'user', content: '[scenario:hello] hi' }] }));
    await untilLogged(1);
    expect(await lastLogged()).toMatchObject({ fault: 'hang', status: null });
    request.destroy();
    for (let i = 0; i < 200 && (await lastLogged())?.status !== 499; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await lastLogged()).toMatchObject({ status: 499 });
  });

  it('refuses a malformed window', async () => {
    const response = await openWindow({ kind: 'meltdown', durationMs: 10 });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/kind/);
  });
});
