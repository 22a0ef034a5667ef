import type { memoryV1, orchestratorV1 } from '@platform/proto';
import { createLogger, errors, GrpcHealthProbe, PlaintextTransport, type PromiseClient } from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { TokenVerifier } from '../auth.js';
import { noAgentPool, noAgents, noConversations, noEvents, noTrigger } from '../test-support/unavailable-ports.js';

// The memory port is a plain object: these tests are about the HTTP edge (validation, mapping,
// error codes, the tenant and actor sent). test/e2e/memory.test.ts drives the real memory service,
// cross-tenant reads included.
const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const FACT_ID = '6f1c2a4e-1b2c-4d3e-8f90-123456789abc';
const calls: Array<{ method: string; request: Record<string, unknown> }> = [];

const fact: memoryV1.Fact = {
  factId: FACT_ID,
  collection: 'user:alice',
  subject: 'user',
  predicate: 'lives_in',
  object: 'Paris',
  kind: 'fact',
  confidence: 0.9,
  source: { origin: 'extracted', conversationId: 'conv-1', runId: 'run_1', messageSeq: 3 },
  validFrom: new Date('2026-11-01T00:00:00Z'),
  validTo: new Date('2026-11-20T00:00:00Z'),
  supersededBy: '7f1c2a4e-1b2c-4d3e-8f90-123456789abc',
  current: false,
  createdAt: new Date('2026-11-01T00:00:00Z'),
};

const record = (method: string) => (request: Record<string, unknown>) => {
  calls.push({ method, request });
};
const memory = {
  queryMemory: async (request: memoryV1.QueryMemoryRequest) => {
    record('queryMemory')(request as unknown as Record<string, unknown>);
    if (request.question === 'model down?')
      throw errors.unavailable('MODEL_UNAVAILABLE', 'the memory model could not answer');
    return {
      answer: 'Alice lived in Paris.',
      answered: true,
      citedFactIds: [FACT_ID],
      citedEpisodeIds: [],
      facts: [fact],
      episodes: [],
      searchMode: 'keyword',
    };
  },
  listFacts: async (request: memoryV1.ListFactsRequest) => {
    record('listFacts')(request as unknown as Record<string, unknown>);
    if (request.pageToken === 'bogus')
      throw errors.invalidArgument('INVALID_PAGE_TOKEN', 'page_token is not one this service issued');
    return {
      facts: request.tenantId === 'acme' ? [fact] : [],
      nextPageToken: request.tenantId === 'acme' ? 'next-1' : '',
    };
  },
  deleteFact: async (request: memoryV1.DeleteFactRequest) => {
    record('deleteFact')(request as unknown as Record<string, unknown>);
    if (request.tenantId !== 'acme' || request.factId !== FACT_ID)
      throw errors.notFound('FACT_NOT_FOUND', `no fact ${request.factId}`);
    return { auditId: 'audit-1' };
  },
  forgetSubject: async (request: memoryV1.ForgetSubjectRequest) => {
    record('forgetSubject')(request as unknown as Record<string, unknown>);
    return { factsDeleted: 2, entitiesDeleted: 1, episodesDeleted: 0, auditId: 'audit-2' };
  },
} as unknown as PromiseClient<memoryV1.MemoryServiceClient>;

let app: FastifyInstance;
// Nothing listens there: the dependency is down, whatever the transport.
const deadProbe = new GrpcHealthProbe('127.0.0.1:1', new PlaintextTransport(), 'orchestrator');
const bearer = async (claims: Record<string, unknown>) =>
  `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(SECRET))}`;
let acme: string;

beforeAll(async () => {
  app = buildApp({
    checkReplies: true,
    logger: createLogger({ service: 'api-test', level: 'silent' }),
    verifier: new TokenVerifier(SECRET),
    maxBodyBytes: 10_000,
    orchestrator: {} as PromiseClient<orchestratorV1.OrchestratorServiceClient>,
    memory,
    trigger: noTrigger,
    events: noEvents,
    agentPool: noAgentPool,
    agents: noAgents,
    conversations: noConversations,
    limits: { maxMessageChars: 100, turnWaitMs: 1_000, sseHeartbeatMs: 1_000 },
    health: {
      dependencies: { orchestrator: { probe: deadProbe, service: '' } },
      probeTimeoutMs: 200,
      isAccepting: () => true,
    },
  });
  await app.ready();
  // Erasing memory needs the admin role (docs/access.md#roles); reads need less.
  acme = await bearer({ sub: 'alice@acme', tenant: 'acme', roles: ['admin'] });
});
afterAll(async () => {
  await app.close();
  deadProbe.close();
});
beforeEach(() => {
  calls.length = 0;
});

const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, auth = acme) =>
  app.inject({
    method,
    url,
    headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { payload: JSON.stringify(body) } : {}),
  });

describe('POST /v1/memory/query', () => {
  it('answers with the cited facts, asking in the caller tenant', async () => {
    const response = await inject('POST', '/v1/memory/query', {
      question: 'Where did Alice live?',
      collectionPrefix: 'user:alice',
      limit: 5,
    });
    expect(response.statusCode).toBe(200);
    expect(calls[0]?.request).toMatchObject({
      tenantId: 'acme',
      question: 'Where did Alice live?',
      collectionPrefix: 'user:alice',
      limit: 5,
    });
    expect(response.json()).toEqual({
      answer: 'Alice lived in Paris.',
      answered: true,
      searchMode: 'keyword',
      citations: {
        episodes: [],
        facts: [
          {
            factId: FACT_ID,
            collection: 'user:alice',
            subject: 'user',
            predicate: 'lives_in',
            object: 'Paris',
            kind: 'fact',
            confidence: 0.9,
            current: false,
            validFrom: '2026-11-01T00:00:00.000Z',
            validTo: '2026-11-20T00:00:00.000Z',
            supersededBy: '7f1c2a4e-1b2c-4d3e-8f90-123456789abc',
            source: { origin: 'extracted', conversationId: 'conv-1', runId: 'run_1', messageSeq: 3 },
            createdAt: '2026-11-01T00:00:00.000Z',
          },
        ],
      },
    });
  });

  it.each([
    [{}, 'INVALID_BODY'],
    [{ question: '   ' }, 'INVALID_BODY'],
    [{ question: 'x', collectionPrefix: 'bad prefix' }, 'INVALID_BODY'],
    [{ question: 'x', limit: 0 }, 'INVALID_BODY'],
    [{ question: 'x', extra: 1 }, 'INVALID_BODY'],
  ])('rejects %j with 400 %s', async (body, code) => {
    const response = await inject('POST', '/v1/memory/query', body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code } });
    expect(calls).toHaveLength(0);
  });

  it('maps a memory model outage to 503 with its code', async () => {
    const response = await inject('POST', '/v1/memory/query', { question: 'model down?' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ error: { code: 'MODEL_UNAVAILABLE' } });
  });

  it('needs a token', async () => {
    expect((await inject('POST', '/v1/memory/query', { question: 'x' }, '')).statusCode).toBe(401);
  });
});

describe('GET /v1/memory/facts', () => {
  it('passes the filters and paging, and returns the next page token', async () => {
    const response = await inject(
      'GET',
      '/v1/memory/facts?collectionPrefix=user:alice&subject=user&includeSuperseded=true&pageSize=10&pageToken=abc',
    );
    expect(response.statusCode).toBe(200);
    expect(calls[0]?.request).toEqual({
      tenantId: 'acme',
      collectionPrefix: 'user:alice',
      subject: 'user',
      includeSuperseded: true,
      pageSize: 10,
      pageToken: 'abc',
    });
    expect(response.json()).toMatchObject({ facts: [{ factId: FACT_ID, current: false }], nextPageToken: 'next-1' });
  });

  it('defaults to current facts of every collection, and says when there is no next page', async () => {
    const response = await inject('GET', '/v1/memory/facts', undefined, await bearer({ sub: 'globex' }));
    expect(calls[0]?.request).toEqual({
      tenantId: 'globex',
      collectionPrefix: '',
      subject: '',
      includeSuperseded: false,
      pageSize: 0,
      pageToken: '',
    });
    expect(response.json()).toEqual({ facts: [], nextPageToken: null });
  });

  it.each(['includeSuperseded=yes', 'pageSize=0', 'pageSize=501', 'collectionPrefix=a::b', 'nope=1'])(
    'rejects ?%s with 400 INVALID_QUERY',
    async (query) => {
      const response = await inject('GET', `/v1/memory/facts?${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'INVALID_QUERY' } });
    },
  );

  it('passes a page token the memory service rejects through as 400 INVALID_PAGE_TOKEN', async () => {
    const response = await inject('GET', '/v1/memory/facts?pageToken=bogus');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'INVALID_PAGE_TOKEN' } });
  });
});

describe('DELETE /v1/memory/facts/{id}', () => {
  it('deletes in the caller tenant, recording the token subject as the actor', async () => {
    const response = await inject('DELETE', `/v1/memory/facts/${FACT_ID}?reason=user%20asked`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ factId: FACT_ID, deleted: true, auditId: 'audit-1' });
    expect(calls[0]?.request).toEqual({ tenantId: 'acme', factId: FACT_ID, actor: 'alice@acme', reason: 'user asked' });
  });

  it('answers 404 FACT_NOT_FOUND for another tenant, an unknown id, or a malformed one', async () => {
    const other = await inject(
      'DELETE',
      `/v1/memory/facts/${FACT_ID}`,
      undefined,
      await bearer({ sub: 'globex', roles: ['admin'] }),
    );
    const unknown = await inject('DELETE', '/v1/memory/facts/00000000-0000-4000-8000-000000000000');
    const malformed = await inject('DELETE', '/v1/memory/facts/not-a-uuid');
    for (const response of [other, unknown, malformed]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ error: { code: 'FACT_NOT_FOUND' } });
    }
    expect(calls.map((c) => c.method)).toEqual(['deleteFact', 'deleteFact']);
  });
});

describe('DELETE /v1/memory/subjects/{subject}', () => {
  it('forgets a subject (URL-decoded) with the counts and the audit id', async () => {
    const response = await inject('DELETE', '/v1/memory/subjects/Alice%20Smith?collectionPrefix=team:eng&reason=gdpr');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      subject: 'Alice Smith',
      factsDeleted: 2,
      entitiesDeleted: 1,
      episodesDeleted: 0,
      auditId: 'audit-2',
    });
    expect(calls[0]?.request).toEqual({
      tenantId: 'acme',
      subject: 'Alice Smith',
      collectionPrefix: 'team:eng',
      actor: 'alice@acme',
      reason: 'gdpr',
    });
  });

  it("refuses a member's token (erasing a member's data is for admins), before calling memory", async () => {
    const member = await bearer({ sub: 'alice@acme', tenant: 'acme' });
    const response = await inject('DELETE', '/v1/memory/subjects/bob', undefined, member);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error: { code: 'FORBIDDEN_ROLE', details: { requiredRole: 'admin' } } });
    expect(calls).toHaveLength(0);
  });

  it('rejects a blank subject and a bad prefix', async () => {
    expect((await inject('DELETE', '/v1/memory/subjects/%20%20')).json()).toMatchObject({
      error: { code: 'INVALID_SUBJECT' },
    });
    expect((await inject('DELETE', '/v1/memory/subjects/alice?collectionPrefix=%20')).json()).toMatchObject({
      error: { code: 'INVALID_QUERY' },
    });
    expect(calls).toHaveLength(0);
  });
});
