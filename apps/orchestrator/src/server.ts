import { OpenAIChatModel } from '@platform/llm';
import { memoryV1, orchestratorV1 } from '@platform/proto';
import { connectNats, createGrpcClient, createRedis, GrpcServer, openServiceDatabase, RateLimiter, type Logger } from '@platform/service-kit';
import { fileURLToPath } from 'node:url';
import { RunStore } from './run-store.js';
import { ToolCatalog, ToolClient } from '@platform/tool-sdk';
import type { OrchestratorConfig } from './config.js';
import { orchestratorServiceImplementation } from './orchestrator-service.js';
import { ProfileRegistry } from './profiles.js';

export const ORCHESTRATOR_SERVICE_NAME = 'orchestrator.v1.OrchestratorService';
export const ORCHESTRATOR_SCHEMA = 'orchestrator';
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

export interface OrchestratorServer {
  readonly port: number;
  stop(): Promise<void>;
}

/** Wires the orchestrator: NATS (tools), memory client, model, tool catalog, gRPC server. */
export async function startOrchestratorServer(config: OrchestratorConfig, logger: Logger): Promise<OrchestratorServer> {
  // Profiles first: a broken profiles file stops the boot before any connection is opened.
  const modelFor = (name: string): OpenAIChatModel =>
    new OpenAIChatModel({ baseURL: config.OPENAI_BASE_URL, apiKey: config.OPENAI_API_KEY, model: name, timeoutMs: config.LLM_TIMEOUT_MS });
  const profiles = ProfileRegistry.fromConfig(config, modelFor);
  const pool = await openServiceDatabase({
    url: config.DATABASE_URL,
    schema: ORCHESTRATOR_SCHEMA,
    migrationsDir,
    applicationName: 'orchestrator',
    maxConnections: config.DATABASE_POOL_MAX,
    logger,
  });
  const redis = createRedis({ url: config.REDIS_URL, name: 'orchestrator', logger });
  const nc = await connectNats({ servers: config.NATS_URL, name: 'orchestrator', logger });
  const memory = createGrpcClient(memoryV1.MemoryServiceClient, memoryV1.MemoryServiceService, config.MEMORY_ADDRESS, { defaultDeadlineMs: config.GRPC_DEADLINE_MS });
  const catalog = new ToolCatalog({ nc, logger, refreshIntervalMs: config.CATALOG_REFRESH_MS, discoveryWaitMs: config.CATALOG_DISCOVERY_WAIT_MS });
  await catalog.start();
  const grpc = new GrpcServer({ host: config.GRPC_HOST, port: config.GRPC_PORT, logger });
  grpc.addService(
    ORCHESTRATOR_SERVICE_NAME,
    orchestratorV1.OrchestratorServiceService,
    orchestratorServiceImplementation({
      config,
      profiles,
      memory: memory.rpc,
      catalog,
      tools: new ToolClient({ nc, logger }),
      runs: new RunStore(pool),
      limiter: new RateLimiter(redis, logger),
      logger,
    }),
  );
  const port = await grpc.start();
  return {
    port,
    async stop() {
      await grpc.stop(config.SHUTDOWN_GRACE_MS);
      catalog.stop();
      memory.close();
      await nc.drain();
      await pool.end();
      redis.disconnect();
    },
  };
}
