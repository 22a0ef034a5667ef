import { memoryV1, orchestratorV1 } from '@platform/proto';
import { createGrpcClient, GrpcHealthProbe, type Logger } from '@platform/service-kit';
import { buildApp } from './app.js';
import { TokenVerifier } from './auth.js';
import type { ApiConfig } from './config.js';

export interface ApiServer {
  readonly port: number;
  stop(): Promise<void>;
}

/** Wires the api: gRPC clients for orchestrator and memory, health probes, the HTTP server. */
export async function startApiServer(config: ApiConfig, logger: Logger): Promise<ApiServer> {
  const orchestrator = createGrpcClient(orchestratorV1.OrchestratorServiceClient, orchestratorV1.OrchestratorServiceService, config.ORCHESTRATOR_ADDRESS, {
    defaultDeadlineMs: config.TURN_WAIT_MS,
  });
  const memory = createGrpcClient(memoryV1.MemoryServiceClient, memoryV1.MemoryServiceService, config.MEMORY_ADDRESS, { defaultDeadlineMs: config.GRPC_DEADLINE_MS });
  const probes = { orchestrator: new GrpcHealthProbe(config.ORCHESTRATOR_ADDRESS), memory: new GrpcHealthProbe(config.MEMORY_ADDRESS) };
  let accepting = true;

  const app = buildApp({
    logger,
    verifier: new TokenVerifier(config.AUTH_JWT_SECRET),
    maxBodyBytes: config.MAX_BODY_BYTES,
    conversations: { orchestrator: orchestrator.rpc, memory: memory.rpc, maxMessageChars: config.MAX_MESSAGE_CHARS, turnWaitMs: config.TURN_WAIT_MS },
    health: {
      dependencies: {
        orchestrator: { probe: probes.orchestrator, service: 'orchestrator.v1.OrchestratorService' },
        memory: { probe: probes.memory, service: 'memory.v1.MemoryService' },
      },
      probeTimeoutMs: Math.min(config.GRPC_DEADLINE_MS, 2_000),
      isAccepting: () => accepting,
    },
  });
  await app.listen({ host: config.HTTP_HOST, port: config.HTTP_PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.HTTP_PORT;
  return {
    port,
    async stop() {
      accepting = false;
      // Fastify stops accepting, answers new requests with 503 and waits for in-flight ones.
      await app.close();
      orchestrator.close();
      memory.close();
      probes.orchestrator.close();
      probes.memory.close();
    },
  };
}
