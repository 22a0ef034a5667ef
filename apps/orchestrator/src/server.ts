import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { RUN_EVENTS_STREAM, RUN_EVENTS_SUBJECT_PREFIX } from '@platform/contracts';
import { OpenAIChatModel } from '@platform/llm';
import { agentPoolV1, memoryV1, orchestratorV1 } from '@platform/proto';
import {
  connectNats,
  createGrpcClient,
  createRedis,
  ensureStream,
  errors,
  GrpcServer,
  openGrpcTransport,
  openServiceDatabase,
  RateLimiter,
  type Logger,
} from '@platform/service-kit';
import { ToolCatalog, ToolClient } from '@platform/tool-sdk';
import { CancelBroadcast } from './cancel-broadcast.js';
import type { OrchestratorConfig } from './config.js';
import { ORCHESTRATOR_CALLERS } from './grpc-callers.js';
import { RunLeaseRenewal } from './journal/run-lease-renewal.js';
import { RunRecords } from './journal/run-records.js';
import { RunSteps } from './journal/run-steps.js';
import { orchestratorServiceImplementation } from './orchestrator-service.js';
import { RunListing } from './listing/run-listing.js';
import { ConversationLease } from './ordering/conversation-lease.js';
import { ConversationQueue } from './ordering/conversation-queue.js';
import { LeaseHeartbeat, leaseRenewalIntervalMs } from './ordering/lease-heartbeat.js';
import { RunEndWatch } from './ordering/run-end-watch.js';
import { ExpiryListener } from './agents/expiry-listener.js';
import { publishEndWithoutRun } from './events/run-event-publisher.js';
import { PoolAgents } from './agents/pool-agents.js';
import { ToolBreakers } from './tool-breakers.js';
import { RunnerStats } from './runner-stats.js';
import { ToolCallRecords } from './tool-calls/tool-call-records.js';
import { ToolTrials } from './tool-calls/tool-trials.js';
import { TaskToolCalls } from './tool-calls/task-tool-calls.js';
import { ToolGate } from './tool-gate/tool-gate.js';
import { CredentialGrants } from './tool-gate/credential-grants.js';
import { ReplyInterpreter } from './agents/reply-interpreter.js';
import { AgentPoolStep } from './agents/agent-pool-step.js';
import { MemoryRecall, memoryRecallSettings } from './recall/memory-recall.js';
import { ShouldProcess } from './admission/should-process.js';
import { FinishedTurnPublisher } from './events/publish-finished-turn.js';
import { RunEndPublisher } from './events/publish-run-end.js';
import { TriggeredRunPublisher } from './events/publish-triggered-run.js';
import { ProfileRegistry } from './profiles.js';
import { RunRecovery } from './run-recovery.js';
import { RunCancellation } from './run-cancellation.js';
import { ChildRuns } from './teams/child-runs.js';
import { WaitingChildrenStep } from './teams/waiting-children.js';
import { WaitingCommitteesStep } from './teams/waiting-committees.js';
import { PlanExecutor } from './teams/plan/plan-execute.js';
import { TurnExecutor } from './turn-executor.js';

export const ORCHESTRATOR_SERVICE_NAME = 'orchestrator.v1.OrchestratorService';
export const ORCHESTRATOR_SCHEMA = 'orchestrator';
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

export interface OrchestratorServer {
  readonly port: number;
  stop(): Promise<void>;
}

/** How long handing runs over may take after the shutdown grace (answering callers, releasing leases). */
const HAND_OVER_MS = 2_000;

/** Whether `work` settles within `ms`. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Wires the orchestrator: journal (Postgres), leases and limits (Redis), NATS (tools, events), model, gRPC. */
export async function startOrchestratorServer(config: OrchestratorConfig, logger: Logger): Promise<OrchestratorServer> {
  // Profiles first: a broken profiles file stops the boot before any connection is opened.
  const modelFor = (name: string): OpenAIChatModel =>
    new OpenAIChatModel({
      baseURL: config.OPENAI_BASE_URL,
      apiKey: config.OPENAI_API_KEY,
      model: name,
      timeoutMs: config.LLM_TIMEOUT_MS,
    });
  const profiles = ProfileRegistry.fromConfig(config, modelFor);
  const transport = openGrpcTransport(config, logger);
  const pool = await openServiceDatabase({
    url: config.DATABASE_URL,
    schema: ORCHESTRATOR_SCHEMA,
    migrationsDir,
    applicationName: 'orchestrator',
    maxConnections: config.DATABASE_POOL_MAX,
    logger,
  });
  const redis = createRedis({
    url: config.REDIS_URL,
    name: 'orchestrator',
    logger,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
  });
  const nc = await connectNats({ config, name: 'orchestrator', logger });
  await ensureStream(nc, {
    name: RUN_EVENTS_STREAM,
    subjects: [`${RUN_EVENTS_SUBJECT_PREFIX}.>`],
    maxAgeMs: config.RUN_EVENTS_MAX_AGE_MS,
  });
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
      defaultDeadlineMs: config.AGENT_TOOL_TIMEOUT_MS,
      transport,
      server: 'agent-pool',
    },
  );
  const catalog = new ToolCatalog({
    nc,
    logger,
    refreshIntervalMs: config.CATALOG_REFRESH_MS,
    discoveryWaitMs: config.CATALOG_DISCOVERY_WAIT_MS,
  });
  await catalog.start();

  // Each process is its own lease owner: a restarted process must not mistake its predecessor's leases for its own.
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const records = new RunRecords(pool);
  const steps = new RunSteps(pool);
  const grants = await CredentialGrants.create(
    {
      signingKeyJson: config.CREDENTIAL_GRANT_SIGNING_KEY,
      maxTtlSeconds: config.CREDENTIAL_GRANT_MAX_TTL_SECONDS,
      slackSeconds: config.CREDENTIAL_GRANT_SLACK_SECONDS,
    },
    logger,
  );
  const cancels = new CancelBroadcast(nc, logger);
  const cancellation = new RunCancellation({
    records,
    cancels,
    cancelLocal: (runId) => executor.cancelLocal(runId, 'cancelled by request'),
    announceCancelled: (run) => publishEndWithoutRun(nc, logger, run.runId, { ...run.result }),
    logger,
  });
  const childRuns: ChildRuns = new ChildRuns({
    records,
    queue: (): ConversationQueue => queue,
    nc,
    cancelRun: async (tenantId, runId) => void (await cancellation.cancel(tenantId, runId)),
    logger,
  });
  const agentPoolStep = new AgentPoolStep({
    grants,
    pool: agentPool.rpc,
    waitingOrder: async (tenantId, runId) => {
      const run = runId ? await records.get(tenantId, runId) : undefined;
      return run
        ? { createdAt: run.createdAt.getTime(), callIds: (run.result?.pendingAgents ?? []).map((p) => p.callId) }
        : undefined;
    },
    catalog,
    interpreter: new ReplyInterpreter(logger),
    noneWaiting: (tenantId, conversationId) => records.clearAgentsMayWait(tenantId, conversationId),
    journal: {
      load: (run) => steps.loadPipeline(run.runId, 'pending-agents'),
      save: (run, plan) => steps.recordPipeline(run, 'pending-agents', plan),
      loadDecision: (run) => steps.loadPipeline(run.runId, 'pending-agents-decision'),
      saveDecision: (run, decision) => steps.recordPipeline(run, 'pending-agents-decision', decision),
    },
    logger,
  });
  // A message first decides a committee put to the user, else answers a child run (a delegation)
  // that waits for the user, then waiting agents.
  const waitingChildren = new WaitingChildrenStep(agentPoolStep, {
    records,
    children: childRuns,
    journal: {
      load: (run) => steps.loadPipeline(run.runId, 'waiting-children'),
      save: (run, plan) => steps.recordPipeline(run, 'waiting-children', plan),
      loadDecision: (run) => steps.loadPipeline(run.runId, 'waiting-children-decision'),
      saveDecision: (run, decision) => steps.recordPipeline(run, 'waiting-children-decision', decision),
    },
    logger,
  });
  const poolAgents = new PoolAgents(agentPool.rpc, (tenantId, conversationId) =>
    records.markAgentsMayWait(tenantId, conversationId),
  );
  const pendingAgents = new WaitingCommitteesStep(waitingChildren, {
    decisions: poolAgents,
    records,
    journal: {
      loadDecision: (run) => steps.loadPipeline(run.runId, 'waiting-committee-decision'),
      saveDecision: (run, decision) => steps.recordPipeline(run, 'waiting-committee-decision', decision),
    },
    logger,
  });
  const shouldProcess = new ShouldProcess({
    limiter: new RateLimiter(redis, logger),
    redis,
    logger,
    defaultTurnsPerMinute: config.RATE_LIMIT_TURNS_PER_MINUTE,
    tiers: config.TENANT_TIERS,
    defaultTier: config.DEFAULT_TIER,
  });
  const toolClient = new ToolClient({ nc, logger });
  const breakers = new ToolBreakers({
    failureThreshold: config.TOOL_BREAKER_FAILURES,
    cooldownMs: config.TOOL_BREAKER_COOLDOWN_MS,
    logger,
  });
  // The one gate every tool call of this process passes, whoever asks (README, "The tool gate").
  const gate = new ToolGate({ catalog, client: toolClient, breakers, grants });
  const memoryRecall = new MemoryRecall(memory.rpc, memoryRecallSettings(config), logger);
  const stopRecallGauge = memoryRecall.observeConcurrency();
  const conversationLeases = new ConversationLease(redis, owner, config.RUN_LEASE_MS);
  const heartbeat = new LeaseHeartbeat({
    runLeases: new RunLeaseRenewal(pool),
    conversationLeases,
    owner,
    leaseMs: config.RUN_LEASE_MS,
    intervalMs: leaseRenewalIntervalMs(config.RUN_LEASE_MS),
    logger,
  });
  const executor = new TurnExecutor({
    config,
    owner,
    profiles,
    memory: memory.rpc,
    catalog,
    records,
    heartbeat,
    steps,
    nc,
    shouldProcess,
    pendingAgents,
    agents: poolAgents,
    gate,
    memoryRecall,
    triggeredRuns: new TriggeredRunPublisher(nc, 5_000, logger),
    childRuns,
    plans: new PlanExecutor({
      children: childRuns,
      journal: {
        load: (run, key) => steps.loadPipeline(run.runId, key),
        save: (run, key, value) => steps.recordPipeline(run, key, value),
      },
      recordPlan: (run, view) => records.recordPlan(run, view),
      defaultSubtaskTimeoutMs: config.DELEGATION_TIMEOUT_MS,
      mayUseTool: (role, tool) => profiles.resolve(role)?.allowsTool(tool) ?? false,
      logger,
    }),
    ...(config.MEMORY_INGEST_ENABLED
      ? {
          finishedTurns: new FinishedTurnPublisher(
            nc,
            { maxInlineBytes: config.MEMORY_INGEST_MAX_INLINE_BYTES, maxPending: 1_000 },
            logger,
          ),
        }
      : {}),
    logger,
  });
  const queue = new ConversationQueue({
    records,
    lease: conversationLeases,
    executor,
    owner,
    leaseMs: config.RUN_LEASE_MS,
    pollIntervalMs: config.RUN_POLL_MS,
    runEnds: new RunEndPublisher(nc, logger),
    logger,
  });
  const runEndWatch = new RunEndWatch(nc, queue, logger);
  cancels.listen((runId) => executor.cancelLocal(runId, 'cancelled by request'));
  const expiries = new ExpiryListener(nc, records, queue, logger);
  const recovery = new RunRecovery(records, queue, {
    intervalMs: config.RECOVERY_INTERVAL_MS,
    leaseMs: config.RUN_LEASE_MS,
    logger,
  });

  const grpc = new GrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    healthPort: config.GRPC_HEALTH_PORT,
    transport,
    logger,
  });
  grpc.addService(
    ORCHESTRATOR_SERVICE_NAME,
    orchestratorV1.OrchestratorServiceService,
    orchestratorServiceImplementation({
      config,
      profiles,
      catalog,
      records,
      queue,
      shouldProcess,
      cancellation,
      listing: new RunListing(pool),
      toolTrials: new ToolTrials({
        gate,
        catalog,
        records: new ToolCallRecords(pool),
        profiles,
        defaultTier: config.DEFAULT_TIER,
        logger,
      }),
      taskToolCalls: new TaskToolCalls({ gate, profiles, defaultTier: config.DEFAULT_TIER, logger }),
      runnerStats: new RunnerStats(nc, { waitMs: config.CATALOG_DISCOVERY_WAIT_MS, logger }),
      breakers,
      memoryRecall,
      logger,
    }),
    ORCHESTRATOR_CALLERS,
  );
  const port = await grpc.start();
  recovery.start();
  expiries.start();
  runEndWatch.start();
  // Runs a previous process left behind are picked up now rather than at the first sweep.
  void recovery.sweep();
  return {
    port,
    async stop() {
      recovery.stop();
      await expiries.stop();
      // No new calls, no new runs; the runs under way get the grace period to finish.
      queue.close();
      // Calls get a little longer than the runs: past the grace they are answered (below), not cut.
      const calls = grpc.stop(config.SHUTDOWN_GRACE_MS + HAND_OVER_MS);
      if (!(await settlesWithin(queue.idle(), config.SHUTDOWN_GRACE_MS))) {
        // Past the grace: callers waiting here are told to go elsewhere (the api attaches again),
        // and the runs stop without writing more and release their leases, so another replica
        // resumes them from their journals at once.
        queue.endWaits(
          errors.unavailable('SHUTTING_DOWN', 'this orchestrator is shutting down; the run goes on elsewhere', {
            retryAfterSeconds: 1,
          }),
        );
        const handedOver = executor.abandonAll('the orchestrator is shutting down');
        logger.warn({ runs: handedOver }, 'runs still under way at the end of the shutdown grace; handed over');
        await queue.idle();
      }
      await calls;
      await runEndWatch.stop();
      heartbeat.stop();
      catalog.stop();
      stopRecallGauge();
      memory.close();
      agentPool.close();
      await nc.drain();
      await pool.end();
      redis.disconnect();
    },
  };
}
