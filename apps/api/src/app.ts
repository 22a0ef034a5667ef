import type { agentPoolV1, memoryV1, orchestratorV1, triggerV1 } from '@platform/proto';
import type { Logger, PromiseClient } from '@platform/service-kit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TokenVerifier } from './auth.js';
import { HttpError, toHttpError } from './http-errors.js';
import type { DeadLetterReader } from './events/dead-letter-reader.js';
import { registerStrictJsonBodies } from './json-body.js';
import { isConsoleRoute, registerConsole, type ConsoleOptions } from './console-static.js';
import type { RunEvents } from './events/run-event-reader.js';
import { actingPrincipal } from './operator.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerApprovalRoutes } from './routes/approvals.js';
import { registerNotificationRoutes } from './routes/notifications.js';
import { registerChatCompletionRoutes } from './routes/chat-completions.js';
import { registerConversationRoutes } from './routes/conversations.js';
import { registerCredentialRoutes } from './routes/credentials.js';
import type { CredentialCalls } from './credential-calls.js';
import { registerMemoryRoutes } from './routes/memory.js';
import { registerHealthRoutes, type HealthRoutesOptions } from './routes/health.js';
import { registerRunRoutes } from './routes/runs.js';
import { registerRunListRoutes } from './routes/run-list.js';
import { registerTaskRoutes } from './routes/tasks.js';
import { registerToolRoutes } from './routes/tools.js';
import { registerUsageRoutes } from './routes/usage.js';
import { TurnRunner } from './turns/turn-runner.js';

export interface AppOptions {
  logger: Logger;
  verifier: TokenVerifier;
  maxBodyBytes: number;
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  agentPool: PromiseClient<agentPoolV1.AgentPoolServiceClient>;
  /** The credential service (store/list/delete/audit); absent: the credential routes answer 503. */
  credentials?: CredentialCalls;
  /** The trigger service, for the tasks endpoints. */
  trigger: PromiseClient<triggerV1.TriggerServiceClient>;
  /** Run events from the run-events stream (SSE, the streaming facade). */
  events: RunEvents;
  limits: {
    /** Longest message content, in characters (longer -> 413). */
    maxMessageChars: number;
    /** How long a request waits for its turn. */
    turnWaitMs: number;
    /** Interval of keep-alive comments on event streams. */
    sseHeartbeatMs: number;
    /** How often an open notification stream asks for new notifications (default 1000). */
    notificationsPollMs?: number;
  };
  health: HealthRoutesOptions;
  /** The web console under /console (docs/console.md); absent: not served. */
  console?: ConsoleOptions;
  /** Operators' read-only views (docs/api.md#operators). */
  admin?: { operatorRole: string; deadLetters?: DeadLetterReader | undefined };
}

/** The operator role when AppOptions names none (the default of AUTH_OPERATOR_ROLE). */
const DEFAULT_OPERATOR_ROLE = 'platform-operator';

const PUBLIC_ROUTES = new Set(['/healthz', '/readyz']);

/** The HTTP edge: JSON errors with stable codes, JWT auth on every /v1 route, and the routes. */
export function buildApp(options: AppOptions): FastifyInstance {
  // pino's Logger and Fastify's logger type differ only in generics; the instance is the same logger.
  const app: FastifyInstance = Fastify({ loggerInstance: options.logger as unknown as FastifyBaseLogger, bodyLimit: options.maxBodyBytes, return503OnClosing: true });

  app.setErrorHandler((error, request, reply) => {
    const mapped = toHttpError(error);
    if (mapped.internal) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: mapped.body.error.code, status: mapped.status }, 'request rejected');
    if (mapped.retryAfterSeconds !== undefined) void reply.header('retry-after', String(mapped.retryAfterSeconds));
    void reply.code(mapped.status).send(mapped.body);
  });
  registerStrictJsonBodies(app);
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no route for ${request.method} ${request.url.split('?')[0]}` } });
  });

  app.addHook('onRequest', async (request) => {
    if (PUBLIC_ROUTES.has(request.routeOptions.url ?? '')) return;
    if (!request.routeOptions.url) return; // unknown route: the 404 handler answers
    if (isConsoleRoute(request.routeOptions.url)) return; // the page is public; its API calls carry the token
    request.principal = actingPrincipal(await options.verifier.verify(request.headers.authorization), request, options.admin?.operatorRole ?? DEFAULT_OPERATOR_ROLE);
  });

  const turns = new TurnRunner(options.orchestrator, options.logger);
  const { events } = options;
  registerHealthRoutes(app, options.health);
  if (options.console) registerConsole(app, options.console);
  registerConversationRoutes(app, { turns, events, memory: options.memory, ...options.limits });
  registerRunRoutes(app, { orchestrator: options.orchestrator, events, sseHeartbeatMs: options.limits.sseHeartbeatMs });
  registerRunListRoutes(app, { orchestrator: options.orchestrator });
  registerNotificationRoutes(app, { trigger: options.trigger, sseHeartbeatMs: options.limits.sseHeartbeatMs, pollMs: options.limits.notificationsPollMs ?? 1_000 });
  registerMemoryRoutes(app, { memory: options.memory });
  registerToolRoutes(app, { orchestrator: options.orchestrator });
  registerUsageRoutes(app, { orchestrator: options.orchestrator });
  registerChatCompletionRoutes(app, { turns, events, ...options.limits });
  registerApprovalRoutes(app, { agentPool: options.agentPool, orchestrator: options.orchestrator, turns, turnWaitMs: options.limits.turnWaitMs });
  registerCredentialRoutes(app, { credentials: options.credentials });
  registerTaskRoutes(app, { trigger: options.trigger });
  registerAdminRoutes(app, { operatorRole: options.admin?.operatorRole ?? DEFAULT_OPERATOR_ROLE, deadLetters: options.admin?.deadLetters, credentials: options.credentials });
  return app;
}

export { HttpError };
