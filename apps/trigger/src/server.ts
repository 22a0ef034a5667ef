import { compileEgressAllowlist, EgressGuard, type HostResolver } from '@platform/egress';
import { orchestratorV1, triggerV1 } from '@platform/proto';
import {
  connectNats,
  createGrpcClient,
  GrpcServer,
  openGrpcTransport,
  openServiceDatabase,
  type Logger,
  type NatsConnection,
} from '@platform/service-kit';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { systemClock, type Clock } from './clock.js';
import type { TriggerConfig } from './config.js';
import { TRIGGER_CALLERS } from './grpc-callers.js';
import { ApprovalExpiryListener } from './approval-expiry-listener.js';
import { ConditionPoller } from './condition-poller.js';
import { EventListener } from './event-listener.js';
import { EventRouter } from './event-router.js';
import { BatchingCustomExecutor } from './executors/batching-custom-executor.js';
import { CustomExecutor } from './executors/custom-executor.js';
import { ExecutorRegistry } from './executors/executor-registry.js';
import type { FireExecutor } from './executors/fire-executor.js';
import { OrchestratorExecutor } from './executors/orchestrator-executor.js';
import { OrchestratorTools } from './orchestrator-tools.js';
import { FireDispatcher } from './fire-dispatcher.js';
import { NotificationFeed } from './notifications/notification-feed.js';
import { triggerWebhookOutbox } from './notifications/webhook-outbox.js';
import { WebhookDispatcher } from '@platform/webhooks';
import { FirePlanner } from './fire-planner.js';
import { FireStore } from './fire-store.js';
import { TaskQuotas } from './task-quotas.js';
import { TaskStore } from './task-store.js';
import { TriggerEngine } from './trigger-engine.js';
import { TriggeredRunListener } from './triggered-run-listener.js';
import { triggerServiceImplementation, type TriggerServiceLimits } from './trigger-service.js';

const TRIGGER_SCHEMA = 'trigger';
const TRIGGER_SERVICE_NAME = 'trigger.v1.TriggerService';
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** A started trigger replica: migrated database, NATS, orchestrator client, engine, gRPC server. */
export interface TriggerServer {
  readonly port: number;
  readonly replicaId: string;
  readonly engine: TriggerEngine;
  readonly webhooks: WebhookDispatcher;
  readonly conditions: ConditionPoller;
  stop(): Promise<void>;
}

export interface TriggerServerOptions {
  /** Tests pass a manual clock and drive the engine themselves (`engine` is then not started). */
  clock?: Clock;
  startEngine?: boolean;
  /** Tests may replace the executors (e.g. to count calls). */
  executor?: FireExecutor;
  /** Tests may resolve webhook hosts themselves (e.g. to play a DNS rebind); default: the system resolver. */
  egressResolver?: HostResolver;
}

/**
 * The fire path's statements (claims, marks, settlements, their notifications) each touch a few
 * hundred rows by primary key, rows that are hot in the buffer cache. With PostgreSQL's default
 * random_page_cost (4, a spinning disk's) the planner hashes the whole tasks and fires tables for
 * each batch instead; at 1.1 it looks the rows up by key, which halves the database's CPU per
 * settled fire (bench/trigger, "Batched executor calls").
 */
const TRIGGER_PLANNER_SETTINGS = { random_page_cost: '1.1' } as const;

/** What the gRPC edge accepts and returns at most, from its environment variables. */
function compileServiceLimits(config: TriggerConfig): TriggerServiceLimits {
  return {
    pageSize: config.TRIGGER_PAGE_SIZE,
    maxPageSize: config.TRIGGER_MAX_PAGE_SIZE,
    maxSpecBytes: config.TRIGGER_MAX_SPEC_BYTES,
    maxEventBytes: config.TRIGGER_MAX_EVENT_BYTES,
    webhookAllowHttp: config.TRIGGER_WEBHOOK_ALLOW_HTTP,
  };
}

export async function startTriggerServer(
  config: TriggerConfig,
  logger: Logger,
  options: TriggerServerOptions = {},
): Promise<TriggerServer> {
  const clock = options.clock ?? systemClock;
  const transport = openGrpcTransport(config, logger);
  const replicaId =
    config.TRIGGER_REPLICA_ID || `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  const db = await openServiceDatabase({
    url: config.DATABASE_URL,
    schema: TRIGGER_SCHEMA,
    migrationsDir,
    applicationName: 'trigger',
    maxConnections: config.DATABASE_POOL_MAX,
    settings: TRIGGER_PLANNER_SETTINGS,
    logger,
  });
  let nc: NatsConnection | undefined;
  const orchestrator = createGrpcClient(
    orchestratorV1.OrchestratorServiceClient,
    orchestratorV1.OrchestratorServiceService,
    config.ORCHESTRATOR_ADDRESS,
    {
      defaultDeadlineMs: config.TRIGGER_ORCHESTRATOR_TIMEOUT_MS,
      transport,
      server: 'orchestrator',
    },
  );
  try {
    nc = await connectNats({ config, name: 'trigger', logger });
    // Every tool call of a task (condition polls, custom executors) goes through the orchestrator's tool gate.
    const tools = new OrchestratorTools(orchestrator.rpc, config.TRIGGER_TOOL_GATE_TIMEOUT_MS);
    const custom = new BatchingCustomExecutor(tools, new CustomExecutor(tools, config.TRIGGER_EXECUTOR_TIMEOUT_MS), {
      timeoutMs: config.TRIGGER_EXECUTOR_TIMEOUT_MS,
      maxBatch: config.TRIGGER_EXECUTOR_BATCH_MAX,
    });
    const executor =
      options.executor ??
      new ExecutorRegistry(new OrchestratorExecutor(orchestrator.rpc, config.TRIGGER_ORCHESTRATOR_TIMEOUT_MS), custom);
    const tasks = new TaskStore(db);
    const quotas = new TaskQuotas(config.TENANT_TIERS, config.DEFAULT_TIER, config.TRIGGER_MAX_TASKS_PER_TENANT);
    const fires = new FireStore(db, replicaId);
    const planner = new FirePlanner(
      db,
      clock,
      {
        planAheadMs: config.TRIGGER_PLAN_AHEAD_MS,
        misfireGraceMs: config.TRIGGER_MISFIRE_GRACE_MS,
        maxCatchUp: config.TRIGGER_MAX_CATCH_UP,
        batchSize: config.TRIGGER_PLAN_BATCH,
      },
      logger,
    );
    const dispatcher = new FireDispatcher(
      fires,
      executor,
      clock,
      {
        maxConcurrent: config.TRIGGER_MAX_CONCURRENT_FIRES,
        leaseMs: config.TRIGGER_LEASE_MS,
        misfireGraceMs: config.TRIGGER_MISFIRE_GRACE_MS,
        maxAttempts: config.TRIGGER_MAX_ATTEMPTS,
        retryBaseMs: config.TRIGGER_RETRY_BASE_MS,
        retryMaxMs: config.TRIGGER_RETRY_MAX_MS,
        claimAheadMs: config.TRIGGER_CLAIM_AHEAD_MS,
        claimAheadBatch: config.TRIGGER_CLAIM_AHEAD_BATCH,
      },
      logger,
    );
    const engine = new TriggerEngine(
      planner,
      dispatcher,
      clock,
      {
        planIntervalMs: config.TRIGGER_PLAN_INTERVAL_MS,
        dispatchIntervalMs: config.TRIGGER_DISPATCH_INTERVAL_MS,
        leaseMs: config.TRIGGER_LEASE_MS,
      },
      logger,
    );
    const filterLimits = {
      maxPatternChars: config.TRIGGER_FILTER_MAX_PATTERN_CHARS,
      maxPatternProgram: config.TRIGGER_FILTER_MAX_PATTERN_PROGRAM,
      maxInputChars: config.TRIGGER_FILTER_MAX_INPUT_CHARS,
    };
    const events = new EventRouter(db, clock, logger, () => engine.kick(), filterLimits);
    const listener = new EventListener(nc, events, config.TRIGGER_EVENTS_MAX_AGE_HOURS * 3_600_000, logger);
    const expiries = new ApprovalExpiryListener(nc, db, logger);
    const runEnds = new TriggeredRunListener(nc, db, clock, config.TRIGGER_EVENTS_MAX_AGE_HOURS * 3_600_000, logger);
    const conditions = new ConditionPoller(
      db,
      tools,
      clock,
      { batchSize: 100, toolTimeoutMs: config.TRIGGER_CONDITION_TOOL_TIMEOUT_MS, filterLimits },
      logger,
      () => engine.kick(),
    );
    const egress = new EgressGuard({
      allowlist: compileEgressAllowlist(config),
      connectTimeoutMs: config.TRIGGER_WEBHOOK_TIMEOUT_MS,
      ...(options.egressResolver ? { resolve: options.egressResolver } : {}),
    });
    const webhooks = new WebhookDispatcher(
      triggerWebhookOutbox(db),
      () => clock.now(),
      egress,
      {
        replicaId,
        timeoutMs: config.TRIGGER_WEBHOOK_TIMEOUT_MS,
        maxAttempts: config.TRIGGER_WEBHOOK_MAX_ATTEMPTS,
        retryBaseMs: config.TRIGGER_WEBHOOK_RETRY_BASE_MS,
        retryMaxMs: config.TRIGGER_WEBHOOK_RETRY_MAX_MS,
        batchSize: 64,
        leaseMs: config.TRIGGER_WEBHOOK_TIMEOUT_MS * 2,
      },
      logger,
    );
    const feed = new NotificationFeed(db);
    const grpc = new GrpcServer({
      host: config.GRPC_HOST,
      port: config.GRPC_PORT,
      healthPort: config.GRPC_HEALTH_PORT,
      transport,
      logger,
    });
    grpc.addService(
      TRIGGER_SERVICE_NAME,
      triggerV1.TriggerServiceService,
      triggerServiceImplementation({
        tasks,
        quotas,
        fires,
        events,
        clock,
        limits: compileServiceLimits(config),
        filterLimits,
        logger,
        onFireRecorded: () => engine.kick(),
        feed,
        egress,
        tools,
      }),
      TRIGGER_CALLERS,
    );
    const port = await grpc.start();
    if (options.startEngine !== false) {
      engine.start();
      webhooks.start(config.TRIGGER_DISPATCH_INTERVAL_MS * 5);
      conditions.start(config.TRIGGER_CONDITION_POLL_INTERVAL_MS);
    }
    listener.start();
    expiries.start();
    runEnds.start();
    const retentionMs = config.TRIGGER_NOTIFICATION_RETENTION_HOURS * 3_600_000;
    const pruneTimer = setInterval(
      () =>
        void feed
          .prune(clock.now() - retentionMs)
          .catch((err: unknown) => logger.warn({ err }, 'could not prune the notification feed')),
      600_000,
    );
    pruneTimer.unref();
    logger.info({ replicaId }, 'trigger replica started');
    const connection = nc;
    return {
      port,
      replicaId,
      engine,
      webhooks,
      conditions,
      async stop() {
        await grpc.stop(config.SHUTDOWN_GRACE_MS);
        await listener.stop();
        await expiries.stop();
        await runEnds.stop();
        clearInterval(pruneTimer);
        webhooks.stop();
        conditions.stop();
        await egress.close();
        // Fires still running after the grace are abandoned; their leases run out and another replica retries them.
        await engine.stop(config.SHUTDOWN_GRACE_MS);
        orchestrator.close();
        await connection.drain();
        await db.end();
      },
    };
  } catch (err) {
    orchestrator.close();
    await nc?.close().catch(() => undefined);
    await db.end();
    throw err;
  }
}
