import type { triggerV1 } from '@platform/proto';
import { createLogger, type GrpcHealthProbe, type Logger, type PromiseClient } from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../app.js';
import { TokenVerifier } from '../auth.js';
import { noAgentPool, noAgents, noConversations, noEvents } from './unavailable-ports.js';

/**
 * The api with only a trigger behind it (tasks, events, notifications): every other service is
 * unavailable (readiness asks `deadProbe`, which the test closes). `extra` adds or replaces options
 * (quotas, limits, a logger).
 */
export function triggerEdgeApp(
  secret: string,
  trigger: PromiseClient<triggerV1.TriggerServiceClient>,
  deadProbe: GrpcHealthProbe,
  extra: Partial<AppOptions> & { logger?: Logger } = {},
): FastifyInstance {
  return buildApp({
    checkReplies: true,
    logger: createLogger({ service: 'api-test', level: 'silent' }),
    verifier: new TokenVerifier(secret),
    maxBodyBytes: 10_000,
    orchestrator: noAgentPool as never,
    memory: noAgentPool as never,
    events: noEvents,
    agentPool: noAgentPool,
    agents: noAgents,
    conversations: noConversations,
    trigger,
    limits: { maxMessageChars: 100, turnWaitMs: 1_000, sseHeartbeatMs: 1_000 },
    health: {
      dependencies: { orchestrator: { probe: deadProbe, service: '' } },
      probeTimeoutMs: 200,
      isAccepting: () => true,
    },
    ...extra,
  });
}
