import {
  agentPoolV1,
  agentsV1,
  remoteAgentsV1,
  conversationsV1,
  credentialV1,
  erasureV1,
  memoryV1,
  orchestratorV1,
  triggerV1,
} from '@platform/proto';
import { modelConnectionChangedSubject, RUN_EVENTS_STREAM, RUN_EVENTS_SUBJECT_PREFIX } from '@platform/contracts';
import {
  connectNats,
  createGrpcClient,
  createRedis,
  ensureStream,
  GrpcHealthProbe,
  listenFailure,
  openGrpcTransport,
  RateLimiter,
  type Logger,
} from '@platform/service-kit';
import { observeGauge, PLATFORM } from '@platform/telemetry';
import { buildApp } from './app.js';
import { CredentialCalls } from './credential-calls.js';
import { ModelConnectionCalls } from './model-connection-calls.js';
import { TokenVerifier } from './auth.js';
import { ApiKeyVerifier } from './access/api-keys.js';
import { NatsKeyRevocations } from './access/key-revocations.js';
import type { ApiConfig } from './config.js';
import { DeadLetterReader } from './events/dead-letter-reader.js';
import { RunEventFeed } from './events/run-event-feed.js';
import { RunEventReader } from './events/run-event-reader.js';
import { RedisEventRate } from './quotas/event-rate.js';
import { RedisStreamLeases } from './quotas/stream-leases.js';
import { TenantQuotas } from './quotas/tenant-quotas.js';

export interface ApiServer {
  readonly port: number;
  stop(): Promise<void>;
}

/** Wires the api: gRPC clients (orchestrator, memory, agent pool, trigger), NATS for run events, health probes, the HTTP server. */
export async function startApiServer(config: ApiConfig, logger: Logger): Promise<ApiServer> {
  const transport = openGrpcTransport(config, logger);
  const nc = await connectNats({ config, name: 'api', logger });
  // The orchestrator creates the stream too; whichever boots first makes it exist for the other.
  await ensureStream(nc, {
    name: RUN_EVENTS_STREAM,
    subjects: [`${RUN_EVENTS_SUBJECT_PREFIX}.>`],
    maxAgeMs: config.RUN_EVENTS_MAX_AGE_MS,
  });
  // One consumer of the run-events stream for every event stream this replica serves.
  const feed = await RunEventFeed.start(nc, logger);
  const orchestrator = createGrpcClient(
    orchestratorV1.OrchestratorServiceClient,
    orchestratorV1.OrchestratorServiceService,
    config.ORCHESTRATOR_ADDRESS,
    {
      defaultDeadlineMs: config.TURN_WAIT_MS,
      transport,
      server: 'orchestrator',
    },
  );
  // The orchestrator serves the AgentService on the same address as its OrchestratorService.
  const agents = createGrpcClient(
    agentsV1.AgentServiceClient,
    agentsV1.AgentServiceService,
    config.ORCHESTRATOR_ADDRESS,
    { defaultDeadlineMs: config.GRPC_DEADLINE_MS, transport, server: 'orchestrator' },
  );
  const remoteAgents = createGrpcClient(
    remoteAgentsV1.RemoteAgentServiceClient,
    remoteAgentsV1.RemoteAgentServiceService,
    config.ORCHESTRATOR_ADDRESS,
    // A write fetches the remote agent's card: allow it the orchestrator's call limit and some.
    { defaultDeadlineMs: Math.max(config.GRPC_DEADLINE_MS, 45_000), transport, server: 'orchestrator' },
  );
  const conversations = createGrpcClient(
    conversationsV1.ConversationServiceClient,
    conversationsV1.ConversationServiceService,
    config.ORCHESTRATOR_ADDRESS,
    { defaultDeadlineMs: config.GRPC_DEADLINE_MS, transport, server: 'orchestrator' },
  );
  const erasure = createGrpcClient(
    erasureV1.ErasureServiceClient,
    erasureV1.ErasureServiceService,
    config.ORCHESTRATOR_ADDRESS,
    { defaultDeadlineMs: config.GRPC_DEADLINE_MS, transport, server: 'orchestrator' },
  );
  const memory = createGrpcClient(memoryV1.MemoryServiceClient, memoryV1.MemoryServiceService, config.MEMORY_ADDRESS, {
    defaultDeadlineMs: config.GRPC_DEADLINE_MS,
    transport,
    server: 'memory',
  });
  const agentPool = createGrpcClient(
    agentPoolV1.AgentPoolServiceClient,
    agentPoolV1.AgentPoolServiceService,
    config.AGENT_POOL_ADDRESS,
    {
      defaultDeadlineMs: config.GRPC_DEADLINE_MS,
      transport,
      server: 'agent-pool',
    },
  );
  const credential = config.CREDENTIAL_PLATFORM_TOKEN
    ? createGrpcClient(
        credentialV1.CredentialServiceClient,
        credentialV1.CredentialServiceService,
        config.CREDENTIAL_ADDRESS,
        { defaultDeadlineMs: config.GRPC_DEADLINE_MS, transport, server: 'credential' },
      )
    : undefined;
  const credentialProbe = credential
    ? new GrpcHealthProbe(config.CREDENTIAL_ADDRESS, transport, 'credential')
    : undefined;
  const trigger = createGrpcClient(
    triggerV1.TriggerServiceClient,
    triggerV1.TriggerServiceService,
    config.TRIGGER_ADDRESS,
    { defaultDeadlineMs: config.GRPC_DEADLINE_MS, transport, server: 'trigger' },
  );
  const probes = {
    orchestrator: new GrpcHealthProbe(config.ORCHESTRATOR_ADDRESS, transport, 'orchestrator'),
    memory: new GrpcHealthProbe(config.MEMORY_ADDRESS, transport, 'memory'),
    agentPool: new GrpcHealthProbe(config.AGENT_POOL_ADDRESS, transport, 'agent-pool'),
  };
  let accepting = true;
  const redis = createRedis({
    url: config.REDIS_URL,
    name: 'api',
    logger,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
  });
  const tenantQuotas = new TenantQuotas(config.TENANT_TIERS, config.DEFAULT_TIER);
  const streams = new RedisStreamLeases({ redis, quotas: tenantQuotas, logger, leaseMs: config.STREAM_LEASE_MS });
  const stopStreamGauge = observeGauge(
    PLATFORM.openStreamsMetric,
    { description: 'Event streams (SSE) open on this api replica', unit: '{stream}' },
    () => [{ value: streams.openHere }],
  );

  const credentialCalls = credential
    ? new CredentialCalls(credential.rpc, config.CREDENTIAL_PLATFORM_TOKEN!)
    : undefined;
  const keyVerifier = credentialCalls
    ? new ApiKeyVerifier(credentialCalls, {
        cacheMs: config.API_KEY_CACHE_MS,
        maxEntries: config.API_KEY_CACHE_SIZE,
        useFlushMs: config.API_KEY_USE_FLUSH_MS,
        logger,
      })
    : undefined;
  const revocations = keyVerifier
    ? new NatsKeyRevocations(nc, (keyId) => keyVerifier.forget(keyId), logger)
    : undefined;
  revocations?.listen();

  const app = buildApp({
    logger,
    verifier: new TokenVerifier({
      secret: config.AUTH_JWT_SECRET,
      jwksUrl: config.AUTH_JWKS_URL,
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
      clockToleranceSeconds: config.AUTH_CLOCK_TOLERANCE_SECONDS,
      maxTokenLifetimeSeconds: config.AUTH_MAX_TOKEN_LIFETIME,
      cache: { maxEntries: config.AUTH_TOKEN_CACHE_SIZE, maxAgeMs: config.AUTH_TOKEN_CACHE_MAX_AGE_MS },
      defaultRole: config.AUTH_DEFAULT_TENANT_ROLE,
      logger,
    }),
    ...(keyVerifier && revocations ? { apiKeys: { verifier: keyVerifier, revocations } } : {}),
    maxBodyBytes: config.MAX_BODY_BYTES,
    publicUrl: config.PUBLIC_BASE_URL,
    orchestrator: orchestrator.rpc,
    agents: agents.rpc,
    remoteAgents: remoteAgents.rpc,
    conversations: conversations.rpc,
    erasure: erasure.rpc,
    memory: memory.rpc,
    agentPool: agentPool.rpc,
    ...(credentialCalls && credential
      ? {
          credentials: credentialCalls,
          // Each write is announced to the orchestrators' connection caches (core NATS: a lost
          // notice is healed by the caches' own expiry).
          modelConnections: new ModelConnectionCalls(
            credential.rpc,
            config.CREDENTIAL_PLATFORM_TOKEN!,
            (tenantId, name) => {
              try {
                nc.publish(modelConnectionChangedSubject(tenantId, name), JSON.stringify({ tenantId, name }));
              } catch (err) {
                // The write stands; the orchestrators' copies expire by themselves.
                logger.warn({ err: (err as Error).message }, 'could not announce a model connection change');
              }
            },
          ),
        }
      : {}),
    trigger: trigger.rpc,
    events: new RunEventReader(nc, feed, logger),
    quotas: { streams, events: new RedisEventRate(new RateLimiter(redis, logger, 'quota'), tenantQuotas) },
    ...(config.CONSOLE_DIR
      ? {
          console: {
            dir: config.CONSOLE_DIR,
            traceUrlTemplate: config.CONSOLE_TRACE_URL_TEMPLATE,
            operatorRole: config.AUTH_OPERATOR_ROLE,
          },
        }
      : {}),
    admin: { operatorRole: config.AUTH_OPERATOR_ROLE, deadLetters: new DeadLetterReader(nc) },
    mcp: {
      auth: {
        resourceUrl: config.MCP_RESOURCE_URL,
        authorizationServers: config.MCP_AUTHORIZATION_SERVERS ?? (config.AUTH_ISSUER ? [config.AUTH_ISSUER] : []),
      },
      sessions: {
        maxSessions: config.MCP_MAX_SESSIONS,
        maxPerTenant: config.MCP_MAX_SESSIONS_PER_TENANT,
        idleMs: config.MCP_SESSION_IDLE_MS,
      },
      elicitationWaitMs: config.MCP_ELICITATION_WAIT_MS,
      defaultTier: config.DEFAULT_TIER,
    },
    limits: {
      maxMessageChars: config.MAX_MESSAGE_CHARS,
      turnWaitMs: config.TURN_WAIT_MS,
      sseHeartbeatMs: config.SSE_HEARTBEAT_MS,
      notificationsPollMs: config.NOTIFICATIONS_POLL_MS,
    },
    health: {
      dependencies: {
        orchestrator: { probe: probes.orchestrator, service: 'orchestrator.v1.OrchestratorService' },
        memory: { probe: probes.memory, service: 'memory.v1.MemoryService' },
        agentPool: { probe: probes.agentPool, service: 'agentpool.v1.AgentPoolService' },
        ...(credentialProbe
          ? { credential: { probe: credentialProbe, service: 'credential.v1.CredentialService' } }
          : {}),
      },
      probeTimeoutMs: Math.min(config.GRPC_DEADLINE_MS, 2_000),
      isAccepting: () => accepting,
    },
  });
  try {
    await app.listen({ host: config.HTTP_HOST, port: config.HTTP_PORT, backlog: config.HTTP_BACKLOG });
  } catch (err) {
    await app.close().catch(() => undefined);
    throw await listenFailure(config.HTTP_HOST, config.HTTP_PORT, 'HTTP_PORT', err);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.HTTP_PORT;
  return {
    port,
    async stop() {
      accepting = false;
      // Fastify stops accepting, answers new requests with 503 and waits for in-flight ones.
      await app.close();
      await keyVerifier?.close();
      orchestrator.close();
      agents.close();
      remoteAgents.close();
      conversations.close();
      erasure.close();
      memory.close();
      agentPool.close();
      trigger.close();
      probes.orchestrator.close();
      probes.memory.close();
      probes.agentPool.close();
      credential?.close();
      credentialProbe?.close();
      streams.stop();
      stopStreamGauge();
      redis.disconnect();
      await feed.stop();
      await nc.drain();
    },
  };
}
