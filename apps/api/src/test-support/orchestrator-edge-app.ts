import type { orchestratorV1 } from '@platform/proto';
import { createLogger, type PromiseClient } from '@platform/service-kit';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, type AppOptions } from '../app.js';
import { TokenVerifier } from '../auth.js';
import { noAgentPool, noAgents, noConversations, noEvents, noTrigger } from './unavailable-ports.js';

/** The operator role of the apps this builds. */
export const EDGE_OPERATOR_ROLE = 'ops-role';

/**
 * The api for HTTP-edge tests of the orchestrator's routes: the orchestrator port is the test's
 * own, every other port fails loudly; tokens are HS256 with `secret`, operators have
 * {@link EDGE_OPERATOR_ROLE}. `bearer` signs a token with the given claims.
 */
async function orchestratorEdgeApp(
  secret: string,
  orchestrator: Partial<PromiseClient<orchestratorV1.OrchestratorServiceClient>>,
  extra: Partial<AppOptions>,
): Promise<{ app: FastifyInstance; bearer: (claims: Record<string, unknown>) => Promise<string> }> {
  const app = buildApp({
    checkReplies: true,
    logger: createLogger({ service: 'api-test', level: 'silent' }),
    verifier: new TokenVerifier({ secret }),
    maxBodyBytes: 10_000,
    orchestrator: orchestrator as PromiseClient<orchestratorV1.OrchestratorServiceClient>,
    memory: {} as never,
    events: noEvents,
    agentPool: noAgentPool,
    agents: noAgents,
    conversations: noConversations,
    trigger: noTrigger,
    limits: { maxMessageChars: 100, turnWaitMs: 1_000, sseHeartbeatMs: 1_000 },
    health: { dependencies: {}, probeTimeoutMs: 200, isAccepting: () => true },
    admin: { operatorRole: EDGE_OPERATOR_ROLE },
    ...extra,
  });
  await app.ready();
  const key = new TextEncoder().encode(secret);
  const bearer = async (claims: Record<string, unknown>): Promise<string> =>
    `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('someone').setIssuedAt().setExpirationTime('1h').sign(key)}`;
  return { app, bearer };
}

/** What a test file gets from {@link useOrchestratorEdgeApp}: requests to the app, and tokens. */
export interface OrchestratorEdge {
  inject(request: InjectOptions): Promise<LightMyRequestResponse>;
  bearer(claims: Record<string, unknown>): Promise<string>;
}

/**
 * Builds the edge app once for the calling test file (before its tests, closed after them), so a
 * suite declares only its orchestrator port (and, in `extra`, any other app option it needs).
 */
export function useOrchestratorEdgeApp(
  secret: string,
  orchestrator: Partial<PromiseClient<orchestratorV1.OrchestratorServiceClient>>,
  extra: Partial<AppOptions> = {},
): OrchestratorEdge {
  let built: { app: FastifyInstance; bearer: OrchestratorEdge['bearer'] } | undefined;
  beforeAll(async () => {
    built = await orchestratorEdgeApp(secret, orchestrator, extra);
  });
  afterAll(async () => built?.app.close());
  const ready = (): NonNullable<typeof built> => {
    if (!built) throw new Error("the edge app is built before the suite's tests run");
    return built;
  };
  return { inject: (request) => ready().app.inject(request), bearer: (claims) => ready().bearer(claims) };
}
