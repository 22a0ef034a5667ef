import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bootAttackedPlatform,
  call,
  send,
  tokenFor,
  waitForCatalog,
  type AttackedPlatform,
  type RawAnswer,
} from './platform-under-attack.js';

// The edge's contract on the defects of issue 34 it closes, each through the real api on the
// real services: text that cannot be stored (item 6), errors the framework raises itself (10),
// the memory model's unreadable answer (14), bodiless routes with an empty JSON body (16), and
// the run's detail with what its listing has (17); and refusals raised while a service checks a
// request, which once left as 500.
const TENANT = 'tenant-edge';

let platform: AttackedPlatform;
let token: string;

beforeAll(async () => {
  platform = await bootAttackedPlatform();
  await waitForCatalog(platform.apiUrl);
  token = await tokenFor(TENANT);
}, 300_000);
afterAll(async () => platform?.stop());

type AnswerJson = { error?: { code: string; details?: Record<string, unknown> } } & Record<string, unknown>;

async function raw(
  method: string,
  url: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<RawAnswer & { json: AnswerJson }> {
  const answer = await send(
    platform.apiUrl,
    {
      method,
      url,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: Buffer.from(body) } : {}),
      corruptedBody: false,
    },
    token,
  );
  return { ...answer, json: answer.text ? (JSON.parse(answer.text) as AnswerJson) : {} };
}

const TASK = {
  name: 'brief',
  trigger: { type: 'schedule', cron: '0 8 * * *' },
  action: { instruction: 'Summarize my unread email.' },
};

describe('text that cannot be stored is refused at the edge, wherever it is sent (item 6)', () => {
  it.each([
    ['a task name', 'POST', '/v1/tasks', JSON.stringify({ ...TASK, name: 'morning\u0000brief' }), '$.name'],
    [
      'a task instruction (it was stored as U+FFFD)',
      'POST',
      '/v1/tasks',
      JSON.stringify({ ...TASK, action: { instruction: 'Summarize\u0000' } }),
      '$.action.instruction',
    ],
    ['a subject to forget, in the path', 'DELETE', '/v1/memory/subjects/ali%00ce', undefined, 'path.subject'],
    [
      'the reason of forgetting, in the query',
      'DELETE',
      '/v1/memory/subjects/alice?reason=gdpr%00',
      undefined,
      'query.reason',
    ],
    ['a subject filter of facts', 'GET', '/v1/memory/facts?subject=ali%00ce', undefined, 'query.subject'],
    ['a tool filter of runs', 'GET', '/v1/runs?tool=calc%00ulator', undefined, 'query.tool'],
    [
      "a key of an event's data",
      'POST',
      '/v1/events',
      JSON.stringify({ source: 'gmail', type: 'message_received', data: { 'from\u0000': 'x' } }),
      '$.data["from\\u0000"] (key)',
    ],
    [
      "a tool call's arguments",
      'POST',
      '/v1/tools/calculator/calls',
      JSON.stringify({ arguments: { expression: '1\u0000+1' } }),
      '$.arguments.expression',
    ],
  ])('NUL in %s: 400 INVALID_CONTENT naming where', async (_what, method, url, body, path) => {
    const answer = await raw(method, url, body);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 'INVALID_CONTENT', details: { path, character: 'nul' } });
  });

  it('stores no task from a refused request, and keeps a well-formed one byte for byte', async () => {
    await raw('POST', '/v1/tasks', JSON.stringify({ ...TASK, name: 'refused\u0000' }));
    const kept = await raw(
      'POST',
      '/v1/tasks',
      JSON.stringify({
        ...TASK,
        name: 'kept \ud83d\ude00 \ufffd',
        action: { instruction: 'emoji \ud83d\ude00 stays' },
      }),
    );
    expect(kept.status).toBe(201);
    const tasks = await call<{ tasks: Array<{ name: string; spec: { action: { instruction: string } } }> }>(
      platform.apiUrl,
      'GET',
      '/v1/tasks',
      TENANT,
    );
    expect(tasks.body.tasks.map((t) => t.name)).not.toContain('refused\u0000');
    expect(tasks.body.tasks.map((t) => t.name)).not.toContain('refused\ufffd');
    const stored = tasks.body.tasks.find((t) => t.name.startsWith('kept'));
    expect(stored?.name).toBe('kept \ud83d\ude00 \ufffd');
    expect(stored?.spec.action.instruction).toBe('emoji \ud83d\ude00 stays');
  });

  it('an unpaired surrogate in a path, a query or a body is refused too', async () => {
    expect((await raw('DELETE', '/v1/memory/subjects/ali%ED%A0%80ce')).json.error?.code).toBe('INVALID_URL');
    expect((await raw('GET', '/v1/runs?tool=%ED%A0%80')).json.error?.code).toBe('INVALID_URL');
    expect(
      (await raw('POST', '/v1/tasks', '{"trigger":{"type":"schedule","cron":"0 8 * * *"},"name":"x\\ud800"}')).json
        .error,
    ).toMatchObject({ code: 'INVALID_CONTENT', details: { path: '$.name', character: 'surrogate' } });
  });

  it('a query whose escape is not UTF-8 is refused, not read as the literal text', async () => {
    const answer = await raw('GET', '/v1/memory/facts?subject=%zz');
    expect(answer.status).toBe(400);
    expect(answer.json.error?.code).toBe('INVALID_URL');
  });

  it('body bytes that are not UTF-8 are refused, not decoded to U+FFFD', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"name":"a'),
      Buffer.from([0xff]),
      Buffer.from('","trigger":{"type":"schedule","cron":"0 8 * * *"}}'),
    ]);
    const answer = await raw('POST', '/v1/tasks', bytes);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 'INVALID_UTF8', details: { byteOffset: 10 } });
  });
});

describe('errors the framework raises itself leave in the documented envelope (item 10)', () => {
  it('a conversation with a 120-character id, created through the facade, can be read back', async () => {
    const conversationId = `c${'x'.repeat(119)}`;
    const created = await raw(
      'POST',
      '/v1/chat/completions',
      JSON.stringify({ model: 'default', messages: [{ role: 'user', content: '[scenario:plain] hello' }] }),
      { 'x-conversation-id': conversationId },
    );
    expect(created.status).toBe(200);
    const history = await raw('GET', `/v1/conversations/${conversationId}/messages`);
    expect(history.status).toBe(200);
    expect((history.json['messages'] as unknown[]).length).toBeGreaterThan(0);
  });

  it.each([
    ['a path that is not percent-encoded UTF-8', 400, 'INVALID_URL', '/v1/runs/%FF'],
    ['a path with a broken escape', 400, 'INVALID_URL', '/v1/tasks/%zz'],
    ['a path segment longer than the router takes', 400, 'INVALID_PATH', `/v1/runs/${'r'.repeat(5_000)}`],
  ])('%s: %i %s', async (_what, status, code, url) => {
    const answer = await raw('GET', url);
    expect(answer.status).toBe(status);
    expect(answer.json).toEqual({ error: { code, message: expect.any(String) as string } });
  });

  it('headers larger than Node accepts: 431 HEADERS_TOO_LARGE', async () => {
    const answer = await raw('GET', '/v1/tasks', undefined, { 'x-filler': 'f'.repeat(40_000) });
    expect(answer.status).toBe(431);
    expect(answer.json).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) as string } });
  });

  it('a request that is not HTTP: 400 BAD_REQUEST', async () => {
    const url = new URL(platform.apiUrl);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
      error: { code: 'BAD_REQUEST', message: expect.any(String) as string },
    });
  });
});

describe('routes without a body accept an empty JSON body (item 16)', () => {
  it('pause, resume, run and delete a task, each sent with content-type application/json and no body', async () => {
    const created = await call<{ taskId: string }>(platform.apiUrl, 'POST', '/v1/tasks', TENANT, TASK);
    const id = created.body.taskId;
    expect((await raw('POST', `/v1/tasks/${id}/pause`, '')).status).toBe(200);
    expect((await raw('POST', `/v1/tasks/${id}/resume`, '')).status).toBe(200);
    expect([200, 202]).toContain((await raw('POST', `/v1/tasks/${id}/run`, '')).status);
    expect((await raw('DELETE', `/v1/tasks/${id}`, '')).status).toBe(204);
    expect((await raw('DELETE', '/v1/memory/subjects/nobody', '')).status).toBe(200);
  });
});

describe('a run reads the same in its detail as in the listing (item 17)', () => {
  it('GET /v1/runs/{runId} has source, profile and startedAt', async () => {
    const turn = await call<{ runId: string }>(
      platform.apiUrl,
      'POST',
      '/v1/conversations/conv-detail/messages',
      TENANT,
      { content: '[scenario:plain] hi' },
    );
    expect(turn.status).toBe(200);
    const detail = await call<Record<string, unknown>>(platform.apiUrl, 'GET', `/v1/runs/${turn.body.runId}`, TENANT);
    const listed = await call<{ runs: Array<Record<string, unknown>> }>(
      platform.apiUrl,
      'GET',
      '/v1/runs?conversationId=conv-detail',
      TENANT,
    );
    const item = listed.body.runs.find((r) => r['runId'] === turn.body.runId);
    expect(detail.body).toMatchObject({ source: 'user', profile: item?.['profile'], startedAt: item?.['startedAt'] });
    expect(typeof detail.body['startedAt']).toBe('string');
  });
});

describe("the memory model's unreadable answer (item 14)", () => {
  it('POST /v1/memory/query answers 503 MODEL_UNAVAILABLE, as documented', async () => {
    await call(platform.apiUrl, 'POST', '/v1/conversations/conv-memory/messages', TENANT, {
      content: '[scenario:plain] I live in Lisbon.',
    });
    for (let attempt = 0; attempt < 200; attempt++) {
      const facts = await call<{ facts: unknown[] }>(platform.apiUrl, 'GET', '/v1/memory/facts?subject=user', TENANT);
      if (facts.body.facts.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const answer = await raw(
      'POST',
      '/v1/memory/query',
      JSON.stringify({ question: 'Where do I live? [memory-sim:malformed]' }),
    );
    expect(answer.status).toBe(503);
    expect(answer.json.error?.code).toBe('MODEL_UNAVAILABLE');
  });
});

describe('a refusal a service raises while checking the request (found by the hostile suite, seed 887777859)', () => {
  it.each([
    ['a stop reason there is none of', 'stopReason=bored', 'INVALID_STOP_REASON'],
    ['a parent run id the orchestrator cannot read', 'parentRunId=run%23one', 'INVALID_PARENT_RUN_ID'],
  ])('GET /v1/runs with %s: 400 with its code, not 500', async (_what, query, code) => {
    const answer = await raw('GET', `/v1/runs?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code });
  });
});
