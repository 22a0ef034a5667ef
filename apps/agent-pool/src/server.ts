import { agentPoolV1 } from '@platform/proto';
import {
  connectNats,
  GrpcServer,
  openGrpcTransport,
  openServiceDatabase,
  type Logger,
  type NatsConnection,
} from '@platform/service-kit';
import { ToolCatalog, ToolClient } from '@platform/tool-sdk';
import { fileURLToPath } from 'node:url';
import { AgentPool } from './agent-pool.js';
import type { PoolSettings } from './agent-pool-types.js';
import { agentPoolServiceImplementation, type AgentPoolServiceLimits } from './agent-pool-service.js';
import { AgentStepClient } from './agent-step-client.js';
import type { AgentPoolConfig } from './config.js';
import { AGENT_POOL_CALLERS } from './grpc-callers.js';
import { PoolGauges } from './pool-gauges.js';
import { Sweeper, type SweepResult } from './sweeper.js';

export const AGENT_POOL_SCHEMA = 'agent_pool';
const AGENT_POOL_SERVICE_NAME = 'agentpool.v1.AgentPoolService';
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** A started agent pool: migrated database, NATS, runner catalog, sweeper, gRPC server listening. */
export interface AgentPoolServer {
  readonly port: number;
  /** Runs one discovery round now (tests; the catalog refreshes on its own every CATALOG_REFRESH_MS). */
  refreshCatalog(): Promise<void>;
  /** Runs one sweep round now (tests; the sweeper runs on its own every SWEEP_INTERVAL_MS). */
  sweepOnce(): Promise<SweepResult>;
  stop(): Promise<void>;
}

/** The pool's tuning, from its environment variables. */
function compilePoolSettings(config: AgentPoolConfig): PoolSettings {
  return {
    maxLivePerTenant: config.MAX_LIVE_AGENTS_PER_TENANT,
    inputTtlMs: config.AGENT_INPUT_TTL_MS,
    pausedTtlMs: config.AGENT_PAUSED_TTL_MS,
    stepTimeoutMs: config.AGENT_STEP_TIMEOUT_MS,
    approvalTimeoutMinutes: config.APPROVAL_TIMEOUT_MINUTES,
  };
}

/** What the gRPC edge accepts at most, from its environment variables. */
function compileServiceLimits(config: AgentPoolConfig): AgentPoolServiceLimits {
  return { maxInputBytes: config.AGENT_MAX_INPUT_BYTES };
}

export async function startAgentPoolServer(config: AgentPoolConfig, logger: Logger): Promise<AgentPoolServer> {
  const db = await openServiceDatabase({
    url: config.DATABASE_URL,
    schema: AGENT_POOL_SCHEMA,
    migrationsDir,
    applicationName: 'agent-pool',
    maxConnections: config.DATABASE_POOL_MAX,
    logger,
  });
  let nc: NatsConnection | undefined;
  let catalog: ToolCatalog | undefined;
  try {
    nc = await connectNats({ config, name: 'agent-pool', logger });
    catalog = new ToolCatalog({
      nc,
      logger,
      refreshIntervalMs: config.CATALOG_REFRESH_MS,
      discoveryWaitMs: config.CATALOG_DISCOVERY_WAIT_MS,
    });
    await catalog.start();
    const sweeper = new Sweeper({
      db,
      nc,
      logger,
      streamName: config.EVENTS_STREAM,
      streamMaxAgeHours: config.EVENTS_MAX_AGE_HOURS,
      intervalMs: config.SWEEP_INTERVAL_MS,
      batchSize: config.SWEEP_BATCH_SIZE,
      retentionDays: config.FINISHED_RETENTION_DAYS,
    });
    // Without JetStream the pool still serves; events wait in the outbox until the stream exists.
    await sweeper
      .ensureStream()
      .catch((err: unknown) =>
        logger.error(
          { err, stream: config.EVENTS_STREAM },
          'could not create the events stream; expiry events stay pending until it can be',
        ),
      );
    const pool = new AgentPool({
      db,
      steps: new AgentStepClient({
        tools: new ToolClient({ nc, logger }),
        logger,
        defaultApprovalTimeoutMinutes: config.APPROVAL_TIMEOUT_MINUTES,
      }),
      agents: catalog,
      settings: compilePoolSettings(config),
      logger,
      onExpired: () => sweeper.kick(),
    });
    const grpc = new GrpcServer({
      host: config.GRPC_HOST,
      port: config.GRPC_PORT,
      healthPort: config.GRPC_HEALTH_PORT,
      transport: openGrpcTransport(config, logger),
      logger,
    });
    grpc.addService(
      AGENT_POOL_SERVICE_NAME,
      agentPoolV1.AgentPoolServiceService,
      agentPoolServiceImplementation(pool, compileServiceLimits(config), logger),
      AGENT_POOL_CALLERS,
    );
    const port = await grpc.start();
    sweeper.start();
    const gauges = new PoolGauges({ db, intervalMs: config.SWEEP_INTERVAL_MS, logger });
    gauges.start();
    const started = { nc, catalog };
    return {
      port,
      refreshCatalog: () => started.catalog.refresh(),
      sweepOnce: () => sweeper.sweepOnce(),
      async stop() {
        // Stop taking calls and let running steps finish (each commits or rolls back), then the rest.
        await grpc.stop(config.SHUTDOWN_GRACE_MS);
        await sweeper.stop();
        gauges.stop();
        started.catalog.stop();
        await started.nc.drain();
        await db.end();
      },
    };
  } catch (err) {
    catalog?.stop();
    await nc?.close().catch(() => undefined);
    await db.end();
    throw err;
  }
}
