import http from 'node:http';
import {
  GrpcHealthProbe,
  PlaintextTransport,
  PlatformError,
  createLogger,
  errors,
  type PromiseClient,
} from '@platform/service-kit';
import type { memoryV1, orchestratorV1, conversationsV1 } from '@platform/proto';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEEP_ALIVE_TIMEOUT_MS, buildApp } from './app.js';
import { TokenVerifier } from './auth.js';
import { calculatorTool } from './test-support/catalog-fixtures.js';
import { noAgentPool, noAgents, noEvents, noTrigger } from './test-support/unavailable-ports.js';

const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const logger = createLogger({ service: 'api-test', level: 'silent' });
const seen: orchestratorV1.HandleMessageRequest[] = [];

// The orchestrator and memory ports are given as plain objects here: these tests are about the
// HTTP edge (auth, validation, error mapping); the end-to-end suite drives real services.
const orchestrator = {
  handleMessage: async (request: orchestratorV1.HandleMessageRequest) => {
    seen.push(request);
    if (request.content === 'fail') throw errors.unavailable('MODEL_UNAVAILABLE', 'the model is down');
    if (request.content === 'flood')
      throw new PlatformError('resource_exhausted', 'RATE_LIMITED', 'slow down', { retryAfterSeconds: 17 });
    if (request.content === 'bug') throw new Error('db password is hunter2');
    return {
      runId: 'run_1',
      status: 'completed',
      stopReason: 'final_answer',
      response: `echo: ${request.content}`,
      turns: 1,
      toolCalls: [{ callId: 'c1', name: 'calculator', success: true, status: 'success', durationMs: 3, errorCode: '' }],
      durationMs: 5,
      usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
    };
  },
  listTools: async () => ({
    tools: [
      calculatorTool({
        inputSchemaJson: '{"type":"object","properties":{"expression":{"type":"string"}}}',
        instances: 2,
      }),
    ],
  }),
  getRun: async (request: orchestratorV1.GetRunRequest) => {
    if (request.tenantId !== 'acme' || request.runId !== 'run_1')
      throw errors.notFound('RUN_NOT_FOUND', `no run '${request.runId}'`);
    return {
      runId: 'run_1',
      conversationId: 'conv-1',
      status: 'completed',
      stopReason: 'final_answer',
      createdAt: new Date(0),
      finishedAt: new Date(1_000),
      source: 'trigger',
      profile: 'concierge',
      startedAt: new Date(10),
      resultJson: '{"response":"hi"}',
      transcriptJson: '[{"iteration":1}]',
    };
  },
} as unknown as PromiseClient<orchestratorV1.OrchestratorServiceClient>;
const memory = {
  listMessages: async (request: memoryV1.ListMessagesRequest) => ({
    messages:
      request.tenantId === 'acme'
        ? [{ seq: 1, runId: 'run_1', createdAt: new Date(0), messageJson: '{"role":"user","content":"hi"}' }]
        : [],
    hasMore: false,
  }),
} as unknown as PromiseClient<memoryV1.MemoryServiceClient>;

let app: FastifyInstance;
// Nothing listens there: the dependency is down, whatever the transport.
const deadProbe = new GrpcHealthProbe('127.0.0.1:1', new PlaintextTransport(), 'orchestrator');

async function token(
  claims: Record<string, unknown>,
  options: { secret?: string; expiresIn?: string } = {},
): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  jwt = jwt.setExpirationTime(options.expiresIn ?? '1h');
  return jwt.sign(new TextEncoder().encode(options.secret ?? SECRET));
}

beforeAll(async () => {
  app = buildApp({
    checkReplies: true,
    logger,
    verifier: new TokenVerifier(SECRET),
    maxBodyBytes: 10_000,
    orchestrator,
    memory,
    events: noEvents,
    agentPool: noAgentPool,
    agents: noAgents,
    // Every history may be read here (who may read which is the conversations suite's).
    conversations: {
      checkConversationAccess: () => Promise.resolve({ allowed: true }),
    } as unknown as PromiseClient<conversationsV1.ConversationServiceClient>,
    trigger: noTrigger,
    limits: { maxMessageChars: 100, turnWaitMs: 1_000, sseHeartbeatMs: 1_000 },
    health: {
      dependencies: { orchestrator: { probe: deadProbe, service: '' } },
      probeTimeoutMs: 200,
      isAccepting: () => true,
    },
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  deadProbe.close();
});

async function post(body: unknown, auth?: string, conversationId = 'conv-1') {
  return app.inject({
    method: 'POST',
    url: `/v1/conversations/${conversationId}/messages`,
    headers: { ...(auth ? { authorization: auth } : {}), 'content-type': 'application/json' },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('authentication', () => {
  it.each([
    [undefined, 'MISSING_TOKEN'],
    ['Basic abc', 'INVALID_TOKEN'],
    ['Bearer not-a-jwt', 'INVALID_TOKEN'],
  ])('rejects %s with 401 %s', async (auth, code) => {
    const response = await post({ content: 'hi' }, auth);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: { code, message: expect.any(String) } });
  });

  it('rejects a token signed with another secret', async () => {
    const response = await post(
      { content: 'hi' },
      `Bearer ${await token({ sub: 'acme' }, { secret: 'another-secret-another-secret-123456' })}`,
    );
    expect(response.json()).toMatchObject({ error: { code: 'INVALID_TOKEN' } });
  });

  it('rejects an expired token', async () => {
    const expired = await new SignJWT({ sub: 'acme' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(SECRET));
    const response = await post({ content: 'hi' }, `Bearer ${expired}`);
    expect(response.json()).toMatchObject({ error: { code: 'TOKEN_EXPIRED' } });
  });

  it('takes the tenant from the tenant claim, else from sub', async () => {
    await post({ content: 'a' }, `Bearer ${await token({ sub: 'user-7', tenant: 'globex' })}`);
    await post({ content: 'b' }, `Bearer ${await token({ sub: 'acme' })}`);
    expect(seen.slice(-2).map((r) => r.tenantId)).toEqual(['globex', 'acme']);
  });

  it('rejects a token without a usable tenant', async () => {
    const response = await post({ content: 'hi' }, `Bearer ${await token({ tenant: 'has spaces' })}`);
    expect(response.statusCode).toBe(401);
  });
});

describe('POST /v1/conversations/:id/messages', () => {
  let auth: string;
  beforeAll(async () => {
    auth = `Bearer ${await token({ sub: 'acme' })}`;
  });

  it('returns the turn result', async () => {
    const response = await post({ content: 'hello' }, auth);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      runId: 'run_1',
      conversationId: 'conv-1',
      status: 'completed',
      response: 'echo: hello',
      turns: 1,
      toolCalls: [{ name: 'calculator', success: true, durationMs: 3 }],
      durationMs: 5,
    });
  });

  it('streams a finished turn as its last event alone when the run events cannot be read (never an error to retry)', async () => {
    const streamed = await app.inject({
      method: 'POST',
      url: '/v1/conversations/conv-1/messages',
      headers: { authorization: auth, 'content-type': 'application/json', accept: 'text/event-stream' },
      payload: JSON.stringify({ content: 'stream me' }),
    });
    expect(streamed.statusCode).toBe(200);
    expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
    const data = streamed.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map(
        (line) => JSON.parse(line.slice(6)) as { type: string; data: { result: { response: string; runId: string } } },
      );
    expect(data).toEqual([
      expect.objectContaining({
        type: 'execution_end',
        data: expect.objectContaining({
          result: expect.objectContaining({ response: 'echo: stream me', runId: 'run_1' }),
        }),
      }),
    ]);

    const facade = await app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: auth, 'content-type': 'application/json' },
      payload: JSON.stringify({
        model: 'default',
        messages: [{ role: 'user', content: 'stream me too' }],
        stream: true,
      }),
    });
    expect(facade.statusCode).toBe(200);
    const chunks = facade.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6));
    expect(chunks.at(-1)).toBe('[DONE]');
    const text = chunks
      .slice(0, -1)
      .map(
        (c) => (JSON.parse(c) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '',
      )
      .join('');
    expect(text).toBe('echo: stream me too');
  });

  it.each([
    ['truncated JSON', '{"content": ', 400, 'INVALID_JSON'],
    ['a wrong field', { text: 'hi' }, 400, 'INVALID_BODY'],
    ['a number as content', { content: 42 }, 400, 'INVALID_BODY'],
    ['blank content', { content: '   ' }, 400, 'EMPTY_CONTENT'],
    ['content over the limit', { content: 'x'.repeat(101) }, 413, 'CONTENT_TOO_LONG'],
    ['a body over the limit', { content: 'x'.repeat(20_000) }, 413, 'PAYLOAD_TOO_LARGE'],
  ])('rejects %s with %i %s', async (_label, body, status, code) => {
    const response = await post(body, auth);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ error: { code } });
  });

  describe('text that cannot be stored faithfully', () => {
    const raw = (url: string, payload: string | Buffer) =>
      app.inject({
        method: 'POST',
        url,
        headers: { authorization: auth, 'content-type': 'application/json' },
        payload,
      });

    it.each([
      ['a lone high surrogate', '{"content":"ab\\ud800"}', { path: '$.content', index: 2 }],
      ['a lone low surrogate', '{"content":"\\udc00 hi"}', { path: '$.content', index: 0 }],
      ['a surrogate in another field', '{"content":"hi","profile":"x\\ud83d"}', { path: '$.profile', index: 1 }],
    ])(
      'refuses %s with 400 INVALID_CONTENT naming where it is, and sends nothing on',
      async (_what, payload, details) => {
        const before = seen.length;
        const response = await raw('/v1/conversations/conv-1/messages', payload);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ error: { code: 'INVALID_CONTENT', details } });
        expect(seen.length).toBe(before);
      },
    );

    it('refuses invalid UTF-8 bytes with 400 INVALID_UTF8 naming the byte offset', async () => {
      const before = seen.length;
      const payload = Buffer.concat([Buffer.from('{"content":"a'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
      const response = await raw('/v1/conversations/conv-1/messages', payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'INVALID_UTF8', details: { byteOffset: 13 } } });
      expect(seen.length).toBe(before);
    });

    it('applies the same rule to the chat-completions facade', async () => {
      const surrogate = await raw(
        '/v1/chat/completions',
        '{"model":"default","messages":[{"role":"user","content":"\\ud800"}]}',
      );
      expect(surrogate.json()).toMatchObject({
        error: { code: 'INVALID_CONTENT', details: { path: '$.messages[0].content', index: 0 } },
      });
      const bytes = await raw(
        '/v1/chat/completions',
        Buffer.concat([
          Buffer.from('{"model":"default","messages":[{"role":"user","content":"'),
          Buffer.from([0xff]),
          Buffer.from('"}]}'),
        ]),
      );
      expect(bytes.json()).toMatchObject({ error: { code: 'INVALID_UTF8' } });
    });

    it('applies the same rule to approval edits', async () => {
      const response = await raw('/v1/approvals/appr_1', '{"decision":"edit","changes":{"subject":"Plan \\udc00"}}');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        error: { code: 'INVALID_CONTENT', details: { path: '$.changes.subject', index: 5 } },
      });
    });

    it('keeps well-formed text byte for byte, astral characters included', async () => {
      const response = await raw(
        '/v1/conversations/conv-1/messages',
        JSON.stringify({ content: 'emoji \ud83d\ude00 and U+FFFD \ufffd stay' }),
      );
      expect(response.statusCode).toBe(200);
      expect(seen.at(-1)!.content).toBe('emoji \ud83d\ude00 and U+FFFD \ufffd stay');
    });
  });

  it('rejects a malformed conversation id', async () => {
    const response = await post({ content: 'hi' }, auth, 'bad%20id');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'INVALID_CONVERSATION_ID' } });
  });

  it('rejects a body that is not JSON', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/conversations/c/messages',
      headers: { authorization: auth, 'content-type': 'application/xml' },
      payload: '<content>hi</content>',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('answers a rate-limited turn with 429 and retry-after', async () => {
    const response = await post({ content: 'flood' }, auth);
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('17');
    expect(response.json()).toEqual({ error: { code: 'RATE_LIMITED', message: 'slow down' } });
  });

  it('maps service errors to HTTP statuses and hides internal details', async () => {
    const unavailable = await post({ content: 'fail' }, auth);
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.json()).toEqual({ error: { code: 'MODEL_UNAVAILABLE', message: 'the model is down' } });
    const internal = await post({ content: 'bug' }, auth);
    expect(internal.statusCode).toBe(500);
    expect(internal.body).not.toContain('hunter2');
  });
});

describe('GET /v1/conversations/:id/messages', () => {
  it('returns the caller tenant history only', async () => {
    const acme = await app.inject({
      method: 'GET',
      url: '/v1/conversations/conv-1/messages',
      headers: { authorization: `Bearer ${await token({ sub: 'acme' })}` },
    });
    expect(acme.json()).toMatchObject({ messages: [{ seq: 1, message: { role: 'user', content: 'hi' } }] });
    const other = await app.inject({
      method: 'GET',
      url: '/v1/conversations/conv-1/messages',
      headers: { authorization: `Bearer ${await token({ sub: 'globex' })}` },
    });
    expect(other.json()).toMatchObject({ messages: [] });
  });

  it('rejects a bad limit', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/v1/conversations/c/messages?limit=0',
      headers: { authorization: `Bearer ${await token({ sub: 'acme' })}` },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'INVALID_QUERY' } });
  });
});

describe('GET /v1/tools', () => {
  it('lists the live catalog with input schemas', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/v1/tools',
      headers: { authorization: `Bearer ${await token({ sub: 'acme' })}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      tools: [
        {
          name: 'calculator',
          description: 'Evaluates arithmetic.',
          inputSchema: { type: 'object', properties: { expression: { type: 'string' } } },
          kind: 'tool',
          runner: 'builtin-tools',
          version: '1.0.0',
          requiresApproval: false,
          timeoutMs: 5_000,
          sideEffect: 'none',
          instances: 2,
          // An orchestrator that sends no replicas or breaker (an older one): none, and closed.
          runnerInstances: [],
          breaker: { state: 'closed', consecutiveFailures: 0, retryInMs: 0 },
        },
      ],
    });
  });

  it('needs a token', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/tools' })).statusCode).toBe(401);
  });
});

describe('GET /v1/runs/:runId', () => {
  it('returns the run with its result and transcript', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/v1/runs/run_1',
      headers: { authorization: `Bearer ${await token({ sub: 'acme' })}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      runId: 'run_1',
      stopReason: 'final_answer',
      result: { response: 'hi' },
      transcript: [{ iteration: 1 }],
      finishedAt: '1970-01-01T00:00:01.000Z',
      source: 'trigger',
      profile: 'concierge',
      startedAt: '1970-01-01T00:00:00.010Z',
    });
  });

  it('answers 404 for another tenant, exactly as for a missing run', async () => {
    const other = await app.inject({
      method: 'GET',
      url: '/v1/runs/run_1',
      headers: { authorization: `Bearer ${await token({ sub: 'globex' })}` },
    });
    const missing = await app.inject({
      method: 'GET',
      url: '/v1/runs/run_2',
      headers: { authorization: `Bearer ${await token({ sub: 'acme' })}` },
    });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: { code: 'RUN_NOT_FOUND', message: "no run 'run_1'" } });
    expect(missing.statusCode).toBe(404);
  });
});

describe('connections', () => {
  it(`keeps an idle connection ${API_KEEP_ALIVE_TIMEOUT_MS / 1000} s and announces it, so a gateway or a client pool can close its own first`, async () => {
    const address = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
    const agent = new http.Agent({ keepAlive: true });
    try {
      const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
        http
          .get({ host: address.hostname, port: address.port, path: '/healthz', agent }, (response) => {
            response.resume();
            resolve(response.headers);
          })
          .on('error', reject);
      });
      expect(headers['connection']).toBe('keep-alive');
      expect(headers['keep-alive']).toBe(`timeout=${API_KEEP_ALIVE_TIMEOUT_MS / 1000}`);
      expect(API_KEEP_ALIVE_TIMEOUT_MS).toBe(72_000); // docs/deploy.md and the Envoy example's upstream idle timeout (60 s) rely on it
    } finally {
      agent.destroy();
    }
  });
});

describe('health', () => {
  it('is alive without a token, and not ready while a dependency is down', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'not ready', checks: { orchestrator: 'unavailable' } });
  });

  it('answers unknown routes with a JSON 404', async () => {
    const response = await app.inject({ method: 'GET', url: '/nope' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});
