import type { conversationsV1, memoryV1, orchestratorV1 } from '@platform/proto';
import {
  createLogger,
  GrpcHealthProbe,
  PlaintextTransport,
  PlatformError,
  type PromiseClient,
} from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { TokenVerifier } from '../auth.js';
import { noAgentPool, noAgents, noEvents, noTrigger } from '../test-support/unavailable-ports.js';

// The HTTP edge of forks: validation, roles, the tenant sent and how memory's refusals map to
// statuses. The memory service's own tests (apps/memory/src/conversation-forks.test.ts) cover the
// forks themselves on real Postgres, and test/e2e/src/forks.test.ts the whole path.
const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const calls: memoryV1.ForkConversationRequest[] = [];
const memory = {
  forkConversation: async (request: memoryV1.ForkConversationRequest) => {
    calls.push(request);
    if (request.atSeq === 99)
      throw new PlatformError('not_found', 'MESSAGE_NOT_FOUND', 'no message 99: the latest is 6', {
        details: { latestSeq: 6 },
      });
    if (request.atSeq === 3)
      throw new PlatformError('failed_precondition', 'FORK_INSIDE_TOOL_CALL', 'message 3 lies inside a tool call');
    return {
      conversationId: request.newConversationId,
      parentConversationId: request.conversationId,
      atSeq: request.atSeq || 6,
      depth: 1,
    };
  },
} as unknown as PromiseClient<memoryV1.MemoryServiceClient>;

let app: FastifyInstance;
interface Reply {
  json: () => unknown;
}
const errorOf = (reply: Reply) => (reply.json() as { error: { code: string; details?: unknown } }).error;

const deadProbe = new GrpcHealthProbe('127.0.0.1:1', new PlaintextTransport(), 'orchestrator');
const bearer = async (claims: Record<string, unknown>) =>
  `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(SECRET))}`;
let member: string;
let viewer: string;

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
    // Every conversation is the caller's to read (who may fork which is the orchestrator's rule, tested there).
    conversations: {
      checkConversationAccess: () => Promise.resolve({ allowed: true }),
    } as unknown as PromiseClient<conversationsV1.ConversationServiceClient>,
    limits: { maxMessageChars: 100, turnWaitMs: 1_000, sseHeartbeatMs: 1_000 },
    health: {
      dependencies: { orchestrator: { probe: deadProbe, service: '' } },
      probeTimeoutMs: 200,
      isAccepting: () => true,
    },
  });
  await app.ready();
  member = await bearer({ sub: 'alice@acme', tenant: 'acme', roles: ['member'] });
  viewer = await bearer({ sub: 'vera@acme', tenant: 'acme', roles: ['viewer'] });
});
afterAll(async () => {
  await app.close();
  deadProbe.close();
});
beforeEach(() => {
  calls.length = 0;
});

const fork = (body: unknown, auth = member, conversation = 'conv-1') =>
  app.inject({
    method: 'POST',
    url: `/v1/conversations/${conversation}/fork`,
    headers: { authorization: auth, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

describe('POST /v1/conversations/{conversationId}/fork', () => {
  it("answers 201 with a new conversation id, forking in the caller's tenant", async () => {
    const response = await fork({ atSeq: 4 });
    expect(response.statusCode).toBe(201);
    expect(calls).toEqual([
      { tenantId: 'acme', conversationId: 'conv-1', atSeq: 4, newConversationId: expect.stringMatching(/^conv_/) },
    ]);
    expect(response.json()).toEqual({
      conversationId: calls[0]!.newConversationId,
      parentConversationId: 'conv-1',
      atSeq: 4,
      depth: 1,
    });
    // Without atSeq: the latest message (0 to memory); two forks never share an id.
    const latest = await fork({});
    expect(latest.json<{ atSeq: number }>().atSeq).toBe(6);
    expect(calls[1]!.atSeq).toBe(0);
    expect(calls[1]!.newConversationId).not.toBe(calls[0]!.newConversationId);
  });

  it("maps memory's refusals: an unknown seq is 404, a cutoff inside a tool call 409", async () => {
    const far = await fork({ atSeq: 99 });
    expect(far.statusCode).toBe(404);
    expect(errorOf(far)).toMatchObject({ code: 'MESSAGE_NOT_FOUND', details: { latestSeq: 6 } });
    const inside = await fork({ atSeq: 3 });
    expect(inside.statusCode).toBe(409);
    expect(errorOf(inside).code).toBe('FORK_INSIDE_TOOL_CALL');
  });

  it('refuses bad input before memory hears of it, and a viewer (forking is for members)', async () => {
    for (const body of [{ atSeq: 0 }, { atSeq: 1.5 }, { atSeq: '2' }, { atSeq: 2, extra: true }]) {
      const response = await fork(body);
      expect(response.statusCode).toBe(400);
      expect(errorOf(response).code).toBe('INVALID_BODY');
    }
    expect(errorOf(await fork({}, member, 'bad%20id')).code).toBe('INVALID_CONVERSATION_ID');
    const refused = await fork({ atSeq: 2 }, viewer);
    expect(refused.statusCode).toBe(403);
    expect(calls).toEqual([]);
  });
});
