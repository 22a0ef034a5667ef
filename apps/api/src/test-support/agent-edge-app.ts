import type { UntypedHandleCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { agentsV1, orchestratorV1 } from '@platform/proto';
import {
  createGrpcClient,
  createLogger,
  GrpcServer,
  PlaintextTransport,
  PlatformError,
  unaryHandler,
} from '@platform/service-kit';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../app.js';
import { TokenVerifier } from '../auth.js';
import { InMemoryAgents } from './in-memory-agents.js';
import { noAgentPool, noConversations, noEvents, noTrigger } from './unavailable-ports.js';

const logger = createLogger({ service: 'api-test', level: 'silent' });

/** What the test orchestrator answers a message with, and what it was asked. */
interface TestOrchestrator {
  messages: orchestratorV1.HandleMessageRequest[];
}

/** A message to the agent `gone-bot` is refused as one to a deleted agent; an override of model `forbidden` as not allowed. */
function handleMessage(seen: TestOrchestrator) {
  return async (request: orchestratorV1.HandleMessageRequest): Promise<orchestratorV1.HandleMessageResponse> => {
    seen.messages.push(request);
    if (request.profile === 'nobody')
      throw new PlatformError('not_found', 'PROFILE_NOT_FOUND', "no agent profile 'nobody'");
    if (request.profile === 'gone-bot')
      throw new PlatformError('failed_precondition', 'AGENT_DELETED', "AGENT_DELETED: 'gone-bot' is deleted");
    if (request.overridesJson?.includes('"forbidden"'))
      throw new PlatformError(
        'invalid_argument',
        'OVERRIDE_NOT_ALLOWED',
        'OVERRIDE_NOT_ALLOWED: model: not one the agent allows',
      );
    return orchestratorV1.HandleMessageResponse.fromPartial({
      runId: request.runId,
      status: 'completed',
      stopReason: 'final_answer',
      response: 'ok',
      turns: 1,
      toolCalls: [],
      durationMs: 1,
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      pendingJson: '[]',
      outputJson: '',
      agentId: 'agt_00000000-0000-4000-8000-000000000001',
      agentVersion: request.agentVersion || 1,
    });
  };
}

function getRun(request: orchestratorV1.GetRunRequest): Promise<orchestratorV1.GetRunResponse> {
  if (request.tenantId !== 'acme' || request.runId !== 'run_00000000-0000-4000-8000-000000000001')
    throw new PlatformError('not_found', 'RUN_NOT_FOUND', `no run '${request.runId}'`);
  return Promise.resolve(
    orchestratorV1.GetRunResponse.fromPartial({
      runId: request.runId,
      conversationId: 'conv-1',
      status: 'completed',
      stopReason: 'final_answer',
      createdAt: new Date(0),
      finishedAt: new Date(1_000),
      source: 'user',
      profile: 'support-bot',
      resultJson: '{"response":"hi"}',
      transcriptJson: '[]',
      agentId: 'agt_00000000-0000-4000-8000-000000000001',
      agentVersion: 2,
      overridesJson: '{"maxTurns":3}',
      subject: 'alice',
    }),
  );
}

/** Every method of a service's definition as a unary handler of `implementation` (missing ones: UNIMPLEMENTED). */
function handlersOf(
  definition: Record<string, unknown>,
  implementation: Record<string, (request: never) => Promise<unknown>>,
): UntypedServiceImplementation {
  return Object.fromEntries(
    Object.keys(definition)
      .filter((name) => implementation[name])
      .map((name) => [
        name,
        unaryHandler(logger, name, (request: unknown) => implementation[name]!(request as never)) as UntypedHandleCall,
      ]),
  );
}

const everyone = <D extends object>(definition: D) =>
  Object.fromEntries(Object.keys(definition).map((name) => [name, ['*']])) as unknown as {
    [K in keyof D]: readonly string[];
  };

/** What a test file gets from {@link useAgentEdgeApp}. */
export interface AgentEdge {
  inject(request: InjectOptions): Promise<LightMyRequestResponse>;
  /** A token of tenant `tenant` for user `sub`, with `tier` when given. */
  bearer(tenant: string, sub?: string, tier?: string): Promise<string>;
  orchestrator: TestOrchestrator;
}

/**
 * The api in front of a real gRPC server on 127.0.0.1 that serves a test AgentService
 * ({@link InMemoryAgents}) and an OrchestratorService that answers messages and one run: built once
 * for the calling test file, closed after it.
 */
export function useAgentEdgeApp(secret: string): AgentEdge {
  const seen: TestOrchestrator = { messages: [] };
  const transport = new PlaintextTransport();
  const server = new GrpcServer({ host: '127.0.0.1', port: 0, logger, transport });
  let app: FastifyInstance | undefined;
  let clients: Array<{ close(): void }> = [];
  beforeAll(async () => {
    server
      .addService(
        'orchestrator.v1.AgentService',
        agentsV1.AgentServiceService,
        handlersOf(agentsV1.AgentServiceService, new InMemoryAgents().service),
        everyone(agentsV1.AgentServiceService),
      )
      .addService(
        'orchestrator.v1.OrchestratorService',
        orchestratorV1.OrchestratorServiceService,
        handlersOf(orchestratorV1.OrchestratorServiceService, { handleMessage: handleMessage(seen), getRun }),
        everyone(orchestratorV1.OrchestratorServiceService),
      );
    const address = `127.0.0.1:${await server.start()}`;
    const options = { defaultDeadlineMs: 5_000, transport, server: 'orchestrator' };
    const agents = createGrpcClient(agentsV1.AgentServiceClient, agentsV1.AgentServiceService, address, options);
    const orchestrator = createGrpcClient(
      orchestratorV1.OrchestratorServiceClient,
      orchestratorV1.OrchestratorServiceService,
      address,
      options,
    );
    clients = [agents, orchestrator];
    app = buildApp({
      checkReplies: true,
      logger,
      verifier: new TokenVerifier({ secret }),
      maxBodyBytes: 100_000,
      orchestrator: orchestrator.rpc,
      agents: agents.rpc,
      conversations: noConversations,
      memory: {} as never,
      events: noEvents,
      agentPool: noAgentPool,
      trigger: noTrigger,
      limits: { maxMessageChars: 1_000, turnWaitMs: 5_000, sseHeartbeatMs: 1_000 },
      health: { dependencies: {}, probeTimeoutMs: 200, isAccepting: () => true },
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    for (const client of clients) client.close();
    await server.stop(0);
  });
  const key = new TextEncoder().encode(secret);
  return {
    inject: (request) => {
      if (!app) throw new Error("the edge app is built before the suite's tests run");
      return app.inject(request);
    },
    // A developer: the agents' writes need that role (docs/access.md); roles have their own tests.
    bearer: async (tenant, sub = 'alice', tier) =>
      `Bearer ${await new SignJWT({ tenant, roles: ['developer'], ...(tier ? { tier } : {}) })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key)}`,
    orchestrator: seen,
  };
}
