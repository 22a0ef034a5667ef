// Tenant isolation on every endpoint, and the edge's input limits. Tenant B knows tenant A's ids
// (conversation, runs) and tries each endpoint with them: it sees nothing of A's, changes nothing
// of A's, and is told "not found" exactly as for an id that does not exist (never 403).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMessageStream, readSse, runEventsOf, watchRun } from './sse.js';
import { api, bootPlatform, tokenFor, type SuitePlatform } from './support.js';

const A = 'tenant-a';
const B = 'tenant-b';
const SHARED_CONVERSATION = 'shared-conversation';
const A_SECRET = 'the launch code is 4242';
const MAX_MESSAGE_CHARS = 1_000;
const MAX_BODY_BYTES = 64 * 1024;

interface Turn {
  runId: string;
  response: string;
}
interface History {
  conversationId: string;
  messages: Array<{ seq: number; runId: string | null; message: { role: string; content?: string | null } }>;
  hasMore: boolean;
}
interface SimRequest {
  /** Set for long-term memory's own requests (extraction, Q&A), which quote the tenant's turns. */
  structuredReply: string | null;
  body: { messages: Array<{ role: string; content?: unknown }> };
}

let platform: SuitePlatform;
let aRunId: string;
let aHistory: History;

beforeAll(async () => {
  platform = await bootPlatform('tenancy', {
    env: {
      orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' },
      api: { MAX_MESSAGE_CHARS: String(MAX_MESSAGE_CHARS), MAX_BODY_BYTES: String(MAX_BODY_BYTES) },
    },
  });
  const turn = await api<Turn>(platform, 'POST', `/v1/conversations/${SHARED_CONVERSATION}/messages`, A, {
    content: `[scenario:calculator] ${A_SECRET}. What is 12 * (3 + 4)?`,
  });
  expect(turn.status).toBe(200);
  aRunId = turn.body.runId;
  aHistory = (await api<History>(platform, 'GET', `/v1/conversations/${SHARED_CONVERSATION}/messages`, A)).body;
  expect(aHistory.messages.length).toBeGreaterThanOrEqual(2);
});
afterAll(async () => {
  await platform?.stop();
});

/** An error body with the run id taken out, to compare "someone else's" with "does not exist". */
function withoutId(body: unknown, runId: string): unknown {
  return JSON.parse(JSON.stringify(body).split(runId).join('<run>'));
}

async function raw(
  method: string,
  path: string,
  init: { tenant?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Response> {
  return fetch(`${platform.apiUrl}${path}`, {
    method,
    headers: { ...(init.tenant ? { authorization: `Bearer ${await tokenFor(init.tenant)}` } : {}), ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
}

/** Every text the model was sent, per request, as llm-sim logged it. */
async function modelRequests(): Promise<string[]> {
  const response = await fetch(`${platform.llmSimUrl}/_sim/requests`);
  const { requests } = (await response.json()) as { requests: SimRequest[] };
  // Memory's extraction of tenant A's turn quotes A's words to the model, on A's behalf and at any
  // moment after A's turn: only the turns' own model calls are compared.
  return requests.filter((r) => r.structuredReply === null).map((r) => JSON.stringify(r.body.messages));
}

describe("another tenant's conversation", () => {
  it('reads as an empty conversation of its own', async () => {
    const page = await api<History>(platform, 'GET', `/v1/conversations/${SHARED_CONVERSATION}/messages`, B);
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ conversationId: SHARED_CONVERSATION, messages: [], hasMore: false });
  });

  it("is a separate conversation when B sends a message to the same id: B's turn never sees A's messages", async () => {
    const before = (await modelRequests()).length;
    const turn = await api<Turn>(platform, 'POST', `/v1/conversations/${SHARED_CONVERSATION}/messages`, B, {
      content: '[scenario:plain] what was said here before?',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.response).toBe(
      'Hello! This is a plain answer from the simulated model. You said: what was said here before?',
    );
    const sent = (await modelRequests()).slice(before);
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) expect(request).not.toContain(A_SECRET);

    const bHistory = await api<History>(platform, 'GET', `/v1/conversations/${SHARED_CONVERSATION}/messages`, B);
    expect(bHistory.body.messages.map((m) => m.message.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(bHistory.body)).not.toContain(A_SECRET);
    expect((await api<History>(platform, 'GET', `/v1/conversations/${SHARED_CONVERSATION}/messages`, A)).body).toEqual(
      aHistory,
    );
  });

  it("cannot be joined through the facade's x-conversation-id", async () => {
    const before = (await modelRequests()).length;
    const response = await raw('POST', '/v1/chat/completions', {
      tenant: B,
      headers: { 'content-type': 'application/json', 'x-conversation-id': SHARED_CONVERSATION },
      body: JSON.stringify({
        model: 'default',
        messages: [{ role: 'user', content: '[scenario:plain] repeat what you were told' }],
      }),
    });
    expect(response.status).toBe(200);
    const completion = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(completion.choices[0]?.message.content).toBe(
      'Hello! This is a plain answer from the simulated model. You said: repeat what you were told',
    );
    const sent = (await modelRequests()).slice(before);
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) expect(request).not.toContain(A_SECRET);
    expect((await api<History>(platform, 'GET', `/v1/conversations/${SHARED_CONVERSATION}/messages`, A)).body).toEqual(
      aHistory,
    );
  });
});

describe("another tenant's run", () => {
  const unknownRunId = `run_${randomUUID()}`;

  it('GET /v1/runs/{id} is 404 RUN_NOT_FOUND, the same answer as for an id that does not exist', async () => {
    const theirs = await api(platform, 'GET', `/v1/runs/${aRunId}`, B);
    const unknown = await api(platform, 'GET', `/v1/runs/${unknownRunId}`, B);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });
    expect(unknown.status).toBe(404);
    expect(withoutId(theirs.body, aRunId)).toEqual(withoutId(unknown.body, unknownRunId));
    expect((await api(platform, 'GET', `/v1/runs/${aRunId}`, A)).status).toBe(200);
  });

  it('GET /v1/runs/{id}/events is 404 as JSON, not a stream, with or without Last-Event-ID', async () => {
    for (const lastEventId of [undefined, 1]) {
      const theirs = await watchRun(platform, B, aRunId, lastEventId);
      expect(theirs.status).toBe(404);
      expect(theirs.headers.get('content-type')).toMatch(/^application\/json/);
      const body: unknown = await theirs.json();
      expect(body).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });
      const unknown = await watchRun(platform, B, unknownRunId, lastEventId);
      expect(unknown.status).toBe(404);
      expect(withoutId(body, aRunId)).toEqual(withoutId(await unknown.json(), unknownRunId));
    }
  });

  it('DELETE /v1/runs/{id} is 404 RUN_NOT_FOUND and leaves the run as it was', async () => {
    const theirs = await api(platform, 'DELETE', `/v1/runs/${aRunId}`, B);
    const unknown = await api(platform, 'DELETE', `/v1/runs/${unknownRunId}`, B);
    expect(theirs.status).toBe(404);
    expect(withoutId(theirs.body, aRunId)).toEqual(withoutId(unknown.body, unknownRunId));
    expect((await api(platform, 'GET', `/v1/runs/${aRunId}`, A)).body).toMatchObject({ status: 'completed' });
  });

  it('is just as invisible while it runs', async () => {
    const response = await postMessageStream(platform, A, 'a-running-1', { content: '[scenario:slow] hello' });
    expect(response.status).toBe(200);
    const runId = response.headers.get('x-run-id') ?? '';
    const events = readSse(response);

    const read = await api(platform, 'GET', `/v1/runs/${runId}`, B);
    const watch = await watchRun(platform, B, runId);
    const cancel = await api(platform, 'DELETE', `/v1/runs/${runId}`, B);
    expect([read.status, watch.status, cancel.status]).toEqual([404, 404, 404]);
    expect(read.body).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });
    expect(await watch.json()).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });
    expect(cancel.body).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });

    expect(runEventsOf(await events).at(-1)?.data['result']).toMatchObject({ stopReason: 'final_answer' });
  });

  it("no endpoint answers 403 for another tenant's ids", async () => {
    const statuses = [
      (await api(platform, 'GET', `/v1/conversations/${SHARED_CONVERSATION}/messages`, B)).status,
      (await api(platform, 'GET', `/v1/runs/${aRunId}`, B)).status,
      (await watchRun(platform, B, aRunId)).status,
      (await api(platform, 'DELETE', `/v1/runs/${aRunId}`, B)).status,
    ];
    expect(statuses).toEqual([200, 404, 404, 404]);
  });
});

describe("another tenant's credentials", () => {
  it('are invisible on every credential endpoint: 404 as for a missing one, empty lists, nothing in the audit trail', async () => {
    expect(
      (await api(platform, 'PUT', '/v1/credentials/google/primary', A, { secret: { access_token: A_SECRET } })).status,
    ).toBe(200);
    expect(await api(platform, 'DELETE', '/v1/credentials/google/primary', B)).toMatchObject({
      status: 404,
      body: { error: { code: 'CREDENTIAL_NOT_FOUND' } },
    });
    expect((await api(platform, 'GET', '/v1/credentials', B)).body).toEqual({ credentials: [] });
    const audit = await api<{ events: Array<{ action: string; outcome: string }> }>(
      platform,
      'GET',
      '/v1/credentials/audit',
      B,
    );
    expect(audit.body.events.map((e) => `${e.action}:${e.outcome}`)).toEqual(['list:ok', 'delete:not_found']);
    expect(JSON.stringify(audit.body)).not.toContain(A_SECRET);
    // B writing the same name makes B's own credential; A's stays as it was.
    expect(
      (
        await api(platform, 'PUT', '/v1/credentials/google/primary', B, {
          secret: { access_token: 'b' },
          expectedVersion: 1,
        })
      ).status,
    ).toBe(409);
    expect(
      (await api<{ credentials: Array<{ version: number }> }>(platform, 'GET', '/v1/credentials', A)).body.credentials,
    ).toMatchObject([{ version: 1 }]);
  });
});

describe("another tenant's usage", () => {
  interface Usage {
    days: Array<{ day: string; turns: number; inputTokens: number; outputTokens: number }>;
    total: { turns: number; inputTokens: number; outputTokens: number };
  }

  it("GET /v1/usage reports the caller's own turns and tokens per day, never another tenant's", async () => {
    const today = new Date().toISOString().slice(0, 10);
    // The suite's turns ran minutes ago: yesterday too, should the suite have crossed midnight (UTC).
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const a = await api<Usage>(platform, 'GET', `/v1/usage?from=${yesterday}`, A);
    expect(a.status).toBe(200);
    expect(a.body.days.length).toBeGreaterThanOrEqual(1);
    for (const { day } of a.body.days) expect([yesterday, today]).toContain(day);
    expect(a.body.total.turns).toBeGreaterThanOrEqual(1);
    expect(a.body.total.inputTokens).toBeGreaterThan(0);
    const sum = (field: 'turns' | 'inputTokens' | 'outputTokens') =>
      a.body.days.reduce((total, d) => total + d[field], 0);
    expect(a.body.total).toEqual({
      turns: sum('turns'),
      inputTokens: sum('inputTokens'),
      outputTokens: sum('outputTokens'),
    });
    // A tenant that never sent a message has none, even for the whole last year.
    const yearAgo = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
    const stranger = await api<Usage>(platform, 'GET', `/v1/usage?from=${yearAgo}&to=${today}`, 'tenant-with-no-turns');
    expect(stranger.body).toEqual({ days: [], total: { turns: 0, inputTokens: 0, outputTokens: 0 } });
  });

  it('refuses a malformed or reversed range with 400 and a code', async () => {
    const cases: Array<[string, string]> = [
      ['/v1/usage?from=2026-02-30', 'INVALID_DAY'],
      ['/v1/usage?from=2026-03-10&to=2026-03-01', 'INVALID_RANGE'],
      ['/v1/usage?from=2020-01-01&to=2026-01-01', 'INVALID_RANGE'],
      ['/v1/usage?tenant=tenant-b', 'INVALID_QUERY'],
    ];
    for (const [path, code] of cases) {
      const response = await api(platform, 'GET', path, A);
      expect(response.status, path).toBe(400);
      expect(response.body, path).toMatchObject({ error: { code } });
    }
  });
});

describe('input limits and authentication', () => {
  const json = { 'content-type': 'application/json' };

  it('refuses a message longer than MAX_MESSAGE_CHARS with 413 CONTENT_TOO_LONG', async () => {
    const turn = await api(platform, 'POST', '/v1/conversations/limits-1/messages', A, {
      content: 'x'.repeat(MAX_MESSAGE_CHARS + 1),
    });
    expect(turn.status).toBe(413);
    expect(turn.body).toMatchObject({ error: { code: 'CONTENT_TOO_LONG', details: { maxChars: MAX_MESSAGE_CHARS } } });
    const facade = await raw('POST', '/v1/chat/completions', {
      tenant: A,
      headers: json,
      body: JSON.stringify({
        model: 'default',
        messages: [{ role: 'user', content: 'x'.repeat(MAX_MESSAGE_CHARS + 1) }],
      }),
    });
    expect(facade.status).toBe(413);
    expect(await facade.json()).toMatchObject({ error: { code: 'CONTENT_TOO_LONG' } });
    expect((await api<History>(platform, 'GET', '/v1/conversations/limits-1/messages', A)).body.messages).toEqual([]);
  });

  it('refuses a message with a NUL character with 400 INVALID_CONTENT, and stores nothing (Postgres text cannot hold it)', async () => {
    const turn = await api(platform, 'POST', '/v1/conversations/limits-nul/messages', A, {
      content: 'before\u0000after',
    });
    expect(turn.status).toBe(400);
    expect(turn.body).toMatchObject({ error: { code: 'INVALID_CONTENT' } });
    const facade = await raw('POST', '/v1/chat/completions', {
      tenant: A,
      headers: json,
      body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'a\u0000b' }] }),
    });
    expect(facade.status).toBe(400);
    expect((await api<History>(platform, 'GET', '/v1/conversations/limits-nul/messages', A)).body.messages).toEqual([]);
  });

  it('refuses a body over MAX_BODY_BYTES with 413 PAYLOAD_TOO_LARGE', async () => {
    const body = JSON.stringify({ content: 'y'.repeat(MAX_BODY_BYTES) });
    const response = await raw('POST', '/v1/conversations/limits-2/messages', { tenant: A, headers: json, body });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('refuses invalid JSON with 400 INVALID_JSON', async () => {
    for (const path of ['/v1/conversations/limits-3/messages', '/v1/chat/completions']) {
      const response = await raw('POST', path, { tenant: A, headers: json, body: '{"content": "unterminated' });
      expect(response.status, path).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'INVALID_JSON' } });
    }
  });

  it('refuses every /v1 endpoint without a token with 401 MISSING_TOKEN', async () => {
    const calls: Array<[string, string, string?]> = [
      ['POST', '/v1/conversations/limits-4/messages', JSON.stringify({ content: 'hi' })],
      ['GET', '/v1/conversations/limits-4/messages'],
      ['GET', `/v1/runs/${aRunId}`],
      ['GET', `/v1/runs/${aRunId}/events`],
      ['DELETE', `/v1/runs/${aRunId}`],
      ['GET', '/v1/tools'],
      ['GET', '/v1/usage'],
      ['PUT', '/v1/credentials/google/primary', JSON.stringify({ secret: {} })],
      ['GET', '/v1/credentials'],
      ['DELETE', '/v1/credentials/google/primary'],
      ['GET', '/v1/credentials/audit'],
      [
        'POST',
        '/v1/chat/completions',
        JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'hi' }] }),
      ],
    ];
    for (const [method, path, body] of calls) {
      const response = await raw(method, path, body === undefined ? {} : { headers: json, body });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 'MISSING_TOKEN' } });
    }
    expect((await api(platform, 'GET', `/v1/runs/${aRunId}`, A)).body).toMatchObject({ status: 'completed' });
  });
});
