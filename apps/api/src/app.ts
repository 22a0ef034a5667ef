import type {
  agentPoolV1,
  agentsV1,
  remoteAgentsV1,
  conversationsV1,
  erasureV1,
  memoryV1,
  orchestratorV1,
  triggerV1,
} from '@platform/proto';
import type { Logger, PromiseClient } from '@platform/service-kit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import type { TokenVerifier } from './auth.js';
import { toHttpError } from './http-errors.js';
import type { DeadLetterReader } from './events/dead-letter-reader.js';
import { frameworkErrorOptions } from './framework-errors.js';
import { registerInputTextCheck } from './input-text.js';
import { registerStrictJsonBodies } from './json-body.js';
import { isConsoleRoute, registerConsole, type ConsoleOptions } from './console-static.js';
import type { RunEvents } from './events/run-event-reader.js';
import { authenticate } from './access/authenticate.js';
import { registerAdminAudit } from './access/admin-audit.js';
import type { ApiKeyVerifier } from './access/api-keys.js';
import { requireRole } from './access/role-check.js';
import { registerKeyRoutes, type KeyRevocations } from './routes/keys.js';
import { registerAuditRoutes } from './routes/audit.js';
import { registerMeRoutes } from './routes/me.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerAgentRoutes } from './routes/agents.js';
import { registerRemoteAgentRoutes } from './routes/remote-agents.js';
import { registerAgentVersionRoutes } from './routes/agent-versions.js';
import { registerConversationForkRoutes } from './routes/conversation-forks.js';
import { registerConversationPinRoutes } from './routes/conversation-pins.js';
import { registerConversationDeletionRoutes } from './routes/conversation-deletions.js';
import { registerApprovalRoutes } from './routes/approvals.js';
import { registerNotificationRoutes } from './routes/notifications.js';
import { registerChatCompletionRoutes } from './routes/chat-completions.js';
import { registerResponseRoutes } from './routes/responses.js';
import { registerAgUiRoutes } from './routes/ag-ui.js';
import { registerMcpRoutes } from './routes/mcp.js';
import type { McpAuthOptions } from './routes/mcp-auth.js';
import type { McpSessionLimits } from './routes/mcp-sessions.js';
import { registerA2aRoutes } from './routes/a2a.js';
import { registerA2aCardRoutes } from './routes/a2a-card.js';
import { OrchestratorPushConfigs } from './a2a/push-configs.js';
import { registerConversationRoutes } from './routes/conversations.js';
import { registerConversationResourceRoutes } from './routes/conversation-resources.js';
import { registerCredentialRoutes } from './routes/credentials.js';
import type { CredentialCalls } from './credential-calls.js';
import type { ModelConnectionCalls } from './model-connection-calls.js';
import { registerModelConnectionRoutes } from './routes/model-connections.js';
import { registerMemoryRoutes } from './routes/memory.js';
import { registerHealthRoutes, type HealthRoutesOptions } from './routes/health.js';
import { registerRunRoutes } from './routes/runs.js';
import { registerRunReplayRoutes } from './routes/run-replays.js';
import { registerRunWebhookRoutes } from './routes/run-webhooks.js';
import { registerRunListRoutes } from './routes/run-list.js';
import { registerTaskRoutes } from './routes/tasks.js';
import { registerToolRoutes } from './routes/tools.js';
import { registerUsageRoutes } from './routes/usage.js';
import { registerOpenApiRoutes } from './routes/openapi.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi/document.js';
import { OperationRouter } from './openapi/operation-router.js';
import { allOperations } from './api-operations.js';
import { TurnRunner } from './turns/turn-runner.js';
import { unlimitedEvents, type EventRateQuota } from './quotas/event-rate.js';
import { unlimitedStreams, type StreamQuota } from './quotas/stream-leases.js';
import { ApiErrorCodes } from './error-codes.js';

export interface AppOptions {
  logger: Logger;
  verifier: TokenVerifier;
  maxBodyBytes: number;
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
  /** The orchestrator's AgentService: tenant agents, their versions, conversation pins (and an agent version's `approverRoles`). */
  agents: PromiseClient<agentsV1.AgentServiceClient>;
  /** The orchestrator's RemoteAgentService: the tenant's remote A2A agents; absent: those routes answer 503. */
  remoteAgents?: PromiseClient<remoteAgentsV1.RemoteAgentServiceClient>;
  /** The orchestrator's ConversationService: conversations as resources, and who may read a history. */
  conversations: PromiseClient<conversationsV1.ConversationServiceClient>;
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  /** The orchestrator's ErasureService (conversation deletion, end-user erasure); absent: those routes answer 503. */
  erasure?: PromiseClient<erasureV1.ErasureServiceClient>;
  agentPool: PromiseClient<agentPoolV1.AgentPoolServiceClient>;
  /** The credential service (store/list/delete/audit); absent: the credential routes answer 503. */
  credentials?: CredentialCalls;
  /** Model connections, in the credential service; absent: their routes answer 503. */
  modelConnections?: ModelConnectionCalls;
  /** The trigger service, for the tasks endpoints. */
  trigger: PromiseClient<triggerV1.TriggerServiceClient>;
  /** Run events from the run-events stream (SSE, the streaming facade). */
  events: RunEvents;
  /** Per-tenant quotas the api enforces (open event streams, event rate); absent: none (tests). */
  quotas?: { streams: StreamQuota; events: EventRateQuota };
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
  /**
   * API keys (docs/access.md#api-keys): the verifier (cache in front of the credential service)
   * and where revocations are announced to every replica; absent: keys are refused.
   */
  apiKeys?: { verifier: ApiKeyVerifier; revocations: KeyRevocations };
  /** Check every JSON reply against its documented schema (tests: the OpenAPI document cannot drift from the handlers). */
  checkReplies?: boolean;
  /** The MCP server (docs/protocols.md#mcp): its OAuth metadata, session bounds, elicitation wait; absent: the defaults. */
  mcp?: McpOptions;
  /** The api's public URL (PUBLIC_BASE_URL), as A2A agent cards name their endpoints; absent: each request's scheme and host. */
  publicUrl?: string | undefined;
  /** Sees every route as it is registered (tests and tooling: which routes the api serves). */
  onRoute?: (route: RouteOptions) => void;
}

/** What the MCP endpoint is configured with (MCP_* and DEFAULT_TIER). */
interface McpOptions {
  auth: McpAuthOptions;
  sessions: McpSessionLimits;
  elicitationWaitMs: number;
  /** The tier of tokens that name none, for the agents' `access.tiers`. */
  defaultTier: string;
}

const MCP_DEFAULTS: McpOptions = {
  auth: { authorizationServers: [] },
  sessions: { maxSessions: 10_000, maxPerTenant: 100, idleMs: 30 * 60_000 },
  elicitationWaitMs: 10 * 60_000,
  defaultTier: 'default',
};

/** The version MCP's initialize names (the api's package version). */
const MCP_SERVER_VERSION = '0.1.0';

/**
 * How long the api keeps an idle keep-alive connection open (announced in `Keep-Alive: timeout=72`).
 * Whatever pools connections to it (the gateway's upstream pool, a load balancer, a client's agent)
 * must close its idle ones sooner: a request sent on a connection at the moment the api closes it
 * is lost before it arrives (a gateway answers 502/503, Node's client "socket hang up").
 * docs/deploy.md, "The gateway".
 */
export const API_KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** The operator role when AppOptions names none (the default of AUTH_OPERATOR_ROLE). */
const DEFAULT_OPERATOR_ROLE = 'platform-operator';

/** The HTTP edge: JSON errors with stable codes, JWT auth on every /v1 route, and the routes. */
export function buildApp(options: AppOptions): FastifyInstance {
  // pino's Logger and Fastify's logger type differ only in generics; the instance is the same logger.
  const logger = options.logger as unknown as FastifyBaseLogger;
  const app: FastifyInstance = Fastify({
    loggerInstance: logger,
    bodyLimit: options.maxBodyBytes,
    return503OnClosing: true,
    keepAliveTimeout: API_KEEP_ALIVE_TIMEOUT_MS,
    ...frameworkErrorOptions(logger),
  });

  app.setErrorHandler((error, request, reply) => {
    const mapped = toHttpError(error);
    if (mapped.internal) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: mapped.body.error.code, status: mapped.status }, 'request rejected');
    if (mapped.retryAfterSeconds !== undefined) void reply.header('retry-after', String(mapped.retryAfterSeconds));
    void reply.code(mapped.status).send(mapped.body);
  });
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  registerStrictJsonBodies(app);
  registerInputTextCheck(app);
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({
      error: {
        code: ApiErrorCodes.NOT_FOUND,
        message: `no route for ${request.method} ${request.url.split('?')[0]}`,
      },
    });
  });

  app.addHook('onRequest', async (request) => {
    if (!request.routeOptions.url) return; // unknown route: the 404 handler answers
    if (request.routeOptions.config.access === 'public') return;
    if (isConsoleRoute(request.routeOptions.url)) return; // the page is public; its API calls carry the token
    const principal = await authenticate(request, {
      verifier: options.verifier,
      keys: options.apiKeys?.verifier,
      operatorRole: options.admin?.operatorRole ?? DEFAULT_OPERATOR_ROLE,
    });
    request.principal = principal;
    const { access, role, operationId } = request.routeOptions.config;
    // Before the body is read: a caller below the operation's role learns nothing about its input.
    if (access === 'tenant' && role) requireRole(principal, role, operationId ?? request.routeOptions.url);
  });
  registerAdminAudit(app, options.credentials, options.logger);

  const turns = new TurnRunner(options.orchestrator, options.logger);
  const { events } = options;
  const router = new OperationRouter(app, {
    operatorRole: options.admin?.operatorRole ?? DEFAULT_OPERATOR_ROLE,
    checkReplies: options.checkReplies ?? false,
  });
  let document: OpenApiDocument | undefined;
  registerHealthRoutes(router, options.health);
  if (options.console) registerConsole(app, options.console);
  registerOpenApiRoutes(router, { document: () => (document ??= buildOpenApiDocument(allOperations)) });
  registerConversationRoutes(router, {
    turns,
    events,
    memory: options.memory,
    conversations: options.conversations,
    ...options.limits,
  });
  registerConversationResourceRoutes(router, { conversations: options.conversations });
  registerAgentRoutes(router, { agents: options.agents });
  registerAgentVersionRoutes(router, { agents: options.agents });
  registerRemoteAgentRoutes(router, { remoteAgents: options.remoteAgents });
  registerConversationPinRoutes(router, { agents: options.agents });
  registerConversationDeletionRoutes(router, {
    erasure: options.erasure,
    memory: options.memory,
  });
  registerConversationForkRoutes(router, { memory: options.memory, conversations: options.conversations });
  const streams = options.quotas?.streams ?? unlimitedStreams;
  registerRunRoutes(router, {
    orchestrator: options.orchestrator,
    events,
    sseHeartbeatMs: options.limits.sseHeartbeatMs,
    streams,
  });
  registerRunListRoutes(router, { orchestrator: options.orchestrator });
  registerRunReplayRoutes(router, { turns, events, ...options.limits });
  registerRunWebhookRoutes(router, { orchestrator: options.orchestrator });
  registerNotificationRoutes(router, {
    trigger: options.trigger,
    sseHeartbeatMs: options.limits.sseHeartbeatMs,
    pollMs: options.limits.notificationsPollMs ?? 1_000,
    streams,
  });
  registerMemoryRoutes(router, { memory: options.memory });
  registerToolRoutes(router, { orchestrator: options.orchestrator });
  registerUsageRoutes(router, { orchestrator: options.orchestrator });
  registerChatCompletionRoutes(router, { turns, events, ...options.limits });
  registerResponseRoutes(router, { turns, events, orchestrator: options.orchestrator, ...options.limits });
  registerAgUiRoutes(router, { turns, events, conversations: options.conversations, ...options.limits });
  registerA2aCardRoutes(router, {
    agents: options.agents,
    publicUrl: options.publicUrl,
    pushNotifications: true,
  });
  registerA2aRoutes(router, {
    turns,
    events,
    orchestrator: options.orchestrator,
    agents: options.agents,
    publicUrl: options.publicUrl,
    pushConfigs: new OrchestratorPushConfigs(options.orchestrator),
    ...options.limits,
  });
  const approvals = {
    agentPool: options.agentPool,
    orchestrator: options.orchestrator,
    agents: options.agents,
    conversations: options.conversations,
    turns,
    turnWaitMs: options.limits.turnWaitMs,
  };
  registerApprovalRoutes(router, approvals);
  registerMcpRoutes(router, {
    ...(options.mcp ?? MCP_DEFAULTS),
    version: MCP_SERVER_VERSION,
    turns,
    events,
    agents: options.agents,
    conversations: options.conversations,
    approvals,
    maxMessageChars: options.limits.maxMessageChars,
    turnWaitMs: options.limits.turnWaitMs,
  });
  registerCredentialRoutes(router, { credentials: options.credentials });
  registerModelConnectionRoutes(router, { connections: options.modelConnections });
  registerTaskRoutes(router, { trigger: options.trigger, eventRate: options.quotas?.events ?? unlimitedEvents });
  registerMeRoutes(router, { operatorRole: options.admin?.operatorRole ?? DEFAULT_OPERATOR_ROLE });
  registerKeyRoutes(router, { credentials: options.credentials, revocations: options.apiKeys?.revocations });
  registerAuditRoutes(router, { credentials: options.credentials });
  registerAdminRoutes(router, { deadLetters: options.admin?.deadLetters, credentials: options.credentials });
  return app;
}
