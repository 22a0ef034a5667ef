import { fileURLToPath } from 'node:url';
import { RUN_EVENTS_STREAM, RUN_EVENTS_SUBJECT_PREFIX } from '@platform/contracts';
import { agentPoolV1, memoryV1 } from '@platform/proto';
import {
  connectNats,
  createGrpcClient,
  createRedis,
  ensureStream,
  openGrpcTransport,
  openServiceDatabase,
  type GrpcTransport,
  type Logger,
  type NatsConnection,
  type Redis,
} from '@platform/service-kit';
import { ToolCatalog } from '@platform/tool-sdk';
import type pg from 'pg';
import type { OrchestratorConfig } from './config.js';

const ORCHESTRATOR_SCHEMA = 'orchestrator';
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** What the orchestrator talks to: its journal (Postgres), leases and limits (Redis), NATS, memory, the agent pool. */
export interface OrchestratorConnections {
  transport: GrpcTransport;
  pool: pg.Pool;
  redis: Redis;
  nc: NatsConnection;
  memory: ReturnType<typeof memoryClient>;
  agentPool: ReturnType<typeof agentPoolClient>;
  catalog: ToolCatalog;
  /** Closes them all, the last opened first; `drain` lets NATS deliver what is on its way (a stop, not a failed boot). */
  close(options?: { drain?: boolean }): Promise<void>;
}

const memoryClient = (config: OrchestratorConfig, transport: GrpcTransport) =>
  createGrpcClient(memoryV1.MemoryServiceClient, memoryV1.MemoryServiceService, config.MEMORY_ADDRESS, {
    defaultDeadlineMs: config.GRPC_DEADLINE_MS,
    transport,
    server: 'memory',
  });

const agentPoolClient = (config: OrchestratorConfig, transport: GrpcTransport) =>
  createGrpcClient(agentPoolV1.AgentPoolServiceClient, agentPoolV1.AgentPoolServiceService, config.AGENT_POOL_ADDRESS, {
    defaultDeadlineMs: config.AGENT_TOOL_TIMEOUT_MS,
    transport,
    server: 'agent-pool',
  });

/**
 * Opens the orchestrator's connections in order. When one fails, those already open are closed
 * before the error goes on, so a failed boot leaves nothing open (as the other services do).
 */
export async function openConnections(config: OrchestratorConfig, logger: Logger): Promise<OrchestratorConnections> {
  const closers: Array<{ close: (drain: boolean) => unknown }> = [];
  const close = async (options: { drain?: boolean } = {}): Promise<void> => {
    for (const closer of closers.splice(0).reverse())
      await Promise.resolve()
        .then(() => closer.close(options.drain ?? false))
        .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'error while closing a connection'));
  };
  try {
    const transport = openGrpcTransport(config, logger);
    const pool = await openServiceDatabase({
      url: config.DATABASE_URL,
      schema: ORCHESTRATOR_SCHEMA,
      migrationsDir,
      applicationName: 'orchestrator',
      maxConnections: config.DATABASE_POOL_MAX,
      logger,
    });
    closers.push({ close: () => pool.end() });
    const redis = createRedis({
      url: config.REDIS_URL,
      name: 'orchestrator',
      logger,
      commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    });
    closers.push({ close: () => redis.disconnect() });
    const nc = await connectNats({ config, name: 'orchestrator', logger });
    closers.push({ close: (drain) => (drain ? nc.drain() : nc.close()) });
    await ensureStream(nc, {
      name: RUN_EVENTS_STREAM,
      subjects: [`${RUN_EVENTS_SUBJECT_PREFIX}.>`],
      maxAgeMs: config.RUN_EVENTS_MAX_AGE_MS,
    });
    const agentPool = agentPoolClient(config, transport);
    const memory = memoryClient(config, transport);
    closers.push({ close: () => agentPool.close() }, { close: () => memory.close() });
    const catalog = new ToolCatalog({
      nc,
      logger,
      refreshIntervalMs: config.CATALOG_REFRESH_MS,
      discoveryWaitMs: config.CATALOG_DISCOVERY_WAIT_MS,
    });
    closers.push({ close: () => catalog.stop() });
    await catalog.start();
    return { transport, pool, redis, nc, memory, agentPool, catalog, close };
  } catch (err) {
    await close();
    throw err;
  }
}
