import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DEFAULT_LOOP_CONFIG } from '@platform/agent-loop';
import { OpenAIChatModel } from '@platform/llm';
import { conversationsV1, erasureV1, orchestratorV1 } from '@platform/proto';
import { GrpcServer, RateLimiter, type Logger } from '@platform/service-kit';
import { ShouldProcess } from './admission/should-process.js';
import { ExpiryListener } from './agent-tools/expiry-listener.js';
import { CancelBroadcast } from './cancel-broadcast.js';
import type { OrchestratorConfig } from './config.js';
import { openConnections, type OrchestratorConnections } from './connections.js';
import { FINISHED_TURN_MAX_PENDING, FinishedTurnPublisher } from './events/publish-finished-turn.js';
import { RunEndPublisher } from './events/publish-run-end.js';
import { TRIGGERED_RUN_PUBLISH_TIMEOUT_MS, TriggeredRunPublisher } from './events/publish-triggered-run.js';
import { publishEndWithoutRun } from './events/run-event-publisher.js';
import { shutDown } from './shutdown.js';
import { CONVERSATION_CALLERS, ERASURE_CALLERS, ORCHESTRATOR_CALLERS } from './grpc-callers.js';
import { openErasure } from './erasure/erasure-setup.js';
import { RunLeaseRenewal } from './journal/run-lease-renewal.js';
import { RunRecords } from './journal/run-records.js';
import { IdempotencyKeys } from './idempotency/idempotency-keys.js';
import { RunSteps } from './journal/run-steps.js';
import { RunListing } from './listing/run-listing.js';
import { orchestratorServiceImplementation } from './orchestrator-service.js';
import { ConversationLease } from './ordering/conversation-lease.js';
import { ConversationQueue } from './ordering/conversation-queue.js';
import { LeaseHeartbeat, leaseRenewalIntervalMs } from './ordering/lease-heartbeat.js';
import { RunEndWatch } from './ordering/run-end-watch.js';
import { compileProfileRegistryOptions } from './profile-options.js';
import { ProfileRegistry } from './profiles.js';
import { MemoryRecall } from './recall/memory-recall.js';
import { RunCancellation } from './run-cancellation.js';
import { RunStops } from './journal/run-stops.js';
import { RunSteers } from './journal/run-steers.js';
import { MultitaskAdmission } from './ordering/multitask.js';
import { HistorySealStep } from './turn/history-seal.js';
import { openRemoteAgents } from './remote-agents/remote-agent-wiring.js';
import { RunRecovery } from './run-recovery.js';
import { RunnerStats } from './runner-stats.js';
import { wireTeams } from './teams/team-wiring.js';
import { DelegationPorts } from './teams/delegation-ports.js';
import { PlanStep } from './teams/plan-step.js';
import { TaskToolCalls } from './tool-calls/task-tool-calls.js';
import { ToolCallRecords } from './tool-calls/tool-call-records.js';
import { ToolTrials } from './tool-calls/tool-trials.js';
import { CredentialGrants } from './tool-gate/credential-grants.js';
import { wireToolGate } from './tool-gate/gate-wiring.js';
import { AdmissionStep } from './turn/admission.js';
import { AgentResolutionStep } from './turn/agent-resolution.js';
import { addAgentServices } from './tenant-agents/agent-service-wiring.js';
import { wireAgents, type AgentSetup } from './tenant-agents/agent-wiring.js';
import { conversationServiceImplementation } from './conversations/conversation-service.js';
import { ConversationStore } from './conversations/conversation-store.js';
import { AttemptStep, type TurnAttempt } from './turn/attempt.js';
import { ContextStep } from './turn/context.js';
import { LoopStep } from './turn/loop.js';
import { RunReplays } from './replays/run-replays.js';
import { OutputCheckStep } from './turn/output-check.js';
import { OUTPUT_RETRIES, OutputSchemas } from './structured/output-schemas.js';
import { PendingAgentToolsStep } from './turn/pending-agent-tools.js';
import { PostProcessStep } from './turn/post-process.js';
import { PublishStep } from './turn/publish.js';
import { ToolPortsStep } from './turn/tool-ports.js';
import { TurnRunner } from './turn/turn-runner.js';
import { TurnSteps, type TurnResult } from './turn/turn-steps.js';
import { RunWebhooks } from './webhooks/run-webhooks.js';
import { compileRunWebhookSettings } from './webhook-options.js';
import { A2aPush } from './a2a-push/a2a-push.js';

const ORCHESTRATOR_SERVICE_NAME = 'orchestrator.v1.OrchestratorService';
const CONVERSATION_SERVICE_NAME = 'orchestrator.v1.ConversationService';
const ERASURE_SERVICE_NAME = 'orchestrator.v1.ErasureService';

export interface OrchestratorServer {
  readonly port: number;
  stop(): Promise<void>;
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
  const profileOptions = compileProfileRegistryOptions(config);
  const profiles = ProfileRegistry.fromOptions(profileOptions, modelFor);
  const connections = await openConnections(config, logger);
  try {
    return await wire(config, logger, { profiles, defaults: profileOptions, modelFor }, connections);
  } catch (err) {
    // A failed boot leaves nothing open.
    await connections.close();
    throw err;
  }
}

async function wire(
  config: OrchestratorConfig,
  logger: Logger,
  setup: AgentSetup,
  connections: OrchestratorConnections,
): Promise<OrchestratorServer> {
  const { pool, redis, nc, memory, agentPool, catalog, transport } = connections;
  const { profiles } = setup;
  const {
    agents,
    store: agentStore,
    directory: agentDirectory,
    modelConnections,
  } = await wireAgents(config, { pool, nc, transport, logger }, setup);
  // Each process is its own lease owner: a restarted process must not mistake its predecessor's leases for its own.
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const records = new RunRecords(pool);
  const idempotencyKeys = new IdempotencyKeys(pool, { sweepIntervalMs: config.IDEMPOTENCY_SWEEP_INTERVAL_MS, logger });
  const steps = new RunSteps(pool);
  // Output schemas compile once each, for the messages that send them and the turns that check answers.
  const outputSchemas = new OutputSchemas();
  const grants = await CredentialGrants.create(
    {
      signingKeyJson: config.CREDENTIAL_GRANT_SIGNING_KEY,
      maxTtlSeconds: config.CREDENTIAL_GRANT_MAX_TTL_SECONDS,
      slackSeconds: config.CREDENTIAL_GRANT_SLACK_SECONDS,
    },
    logger,
  );
  // Tenants' remote A2A agents (docs/remote-agents.md): a delegate naming one runs its child there.
  const remoteAgents = openRemoteAgents(config, { pool, transport, grants, logger });
  const memoryRecall = new MemoryRecall(
    memory.rpc,
    {
      contextTokens: config.MEMORY_CONTEXT_TOKENS,
      timeoutMs: config.MEMORY_RECALL_TIMEOUT_MS,
      limit: config.MEMORY_RECALL_LIMIT,
      maxInFlight: config.MEMORY_RECALL_MAX_IN_FLIGHT,
      collectionPrefix: config.MEMORY_RECALL_COLLECTION_PREFIX,
      charsPerToken: DEFAULT_LOOP_CONFIG.charsPerToken,
    },
    logger,
  );
  const conversationLeases = new ConversationLease(redis, owner, config.RUN_LEASE_MS);
  const heartbeat = new LeaseHeartbeat({
    runLeases: new RunLeaseRenewal(pool),
    conversationLeases,
    owner,
    leaseMs: config.RUN_LEASE_MS,
    intervalMs: leaseRenewalIntervalMs(config.RUN_LEASE_MS),
    logger,
  });
  // The turn's first step; it knows the attempts under way here (cancel, hand over).
  const attempts = new AttemptStep({
    owner,
    records,
    heartbeat,
    nc,
    outage: { retryBackoffMs: config.RUN_RETRY_BACKOFF_MS, turnTimeoutMs: config.TURN_TIMEOUT_MS },
    ended: (runId) => memoryRecall.release(runId),
    logger,
  });
  const cancels = new CancelBroadcast(nc, logger);
  const stops = new RunStops(pool);
  const steers = new RunSteers(pool);
  const cancellation = new RunCancellation({
    records,
    stops,
    steers,
    cancels,
    local: (runId, notice) => attempts.notice(runId, notice),
    announceCancelled: (run) => publishEndWithoutRun(nc, logger, run.runId, { ...run.result }),
    logger,
  });
  const erasure = openErasure(config, {
    pool,
    redis,
    nc,
    memory: memory.rpc,
    agentPool: agentPool.rpc,
    cancellation,
    owner,
    logger,
  });
  // The queue is served by the turn runner below (the teams' child runs go through the queue).
  const queue = new ConversationQueue({
    records,
    lease: conversationLeases,
    owner,
    leaseMs: config.RUN_LEASE_MS,
    pollIntervalMs: config.RUN_POLL_MS,
    runEnds: new RunEndPublisher(nc, logger),
    logger,
  });
  // What waits for the user (agent-tools, committees, children waiting) and what delegates (teams/).
  const { childRuns, poolAgents, pendingAgents, plans } = wireTeams(
    { records, steps, queue, cancellation, agents, grants, connections, logger },
    { delegationTimeoutMs: config.DELEGATION_TIMEOUT_MS },
  );
  const { gate, breakers } = wireToolGate(
    { nc, catalog, grants, logger },
    { failureThreshold: config.TOOL_BREAKER_FAILURES, cooldownMs: config.TOOL_BREAKER_COOLDOWN_MS },
  );
  const tiers = { tiers: config.TENANT_TIERS, defaultTier: config.DEFAULT_TIER };
  const shouldProcess = new ShouldProcess({
    limiter: new RateLimiter(redis, logger),
    redis,
    logger,
    defaultTurnsPerMinute: config.RATE_LIMIT_TURNS_PER_MINUTE,
    ...tiers,
  });
  // The turn, step by step (README, "The path of a turn"); a new step is one line here.
  const runner = new TurnRunner({
    attempt: attempts,
    prepare: TurnSteps.of<TurnAttempt>()
      .then(new AdmissionStep({ maxAttempts: config.MAX_RUN_ATTEMPTS, logger }))
      .then(remoteAgents.step)
      .then(new AgentResolutionStep({ agents, logger }))
      .then(new PendingAgentToolsStep(pendingAgents))
      .then(new PlanStep(plans, { schemas: outputSchemas, retries: OUTPUT_RETRIES }))
      .then(
        new ToolPortsStep({
          gate,
          agents: poolAgents,
          decorators: [
            new DelegationPorts({
              childRuns,
              profiles,
              settings: {
                maxDepth: config.MAX_DELEGATION_DEPTH,
                defaultTimeoutMs: config.DELEGATION_TIMEOUT_MS,
                defaultTier: config.DEFAULT_TIER,
              },
              userDecisions: poolAgents,
            }),
          ],
        }),
      )
      .then(
        new ContextStep({
          memory: memory.rpc,
          catalog,
          history: { messages: config.HISTORY_MESSAGES, bytes: config.HISTORY_MAX_BYTES },
          defaultTimeZone: config.DEFAULT_TIMEZONE,
          memoryRecall,
        }),
      )
      .then(new OutputCheckStep({ schemas: outputSchemas, retries: OUTPUT_RETRIES, logger }))
      .then(new LoopStep(steps, steers, logger)),
    finish: TurnSteps.of<TurnResult>()
      .then(new HistorySealStep(stops))
      .then(
        new PostProcessStep({
          memory: memory.rpc,
          records,
          memoryRecall,
          shouldProcess,
          triggeredRuns: new TriggeredRunPublisher(nc, TRIGGERED_RUN_PUBLISH_TIMEOUT_MS, logger),
          ...(config.MEMORY_INGEST_ENABLED
            ? {
                finishedTurns: new FinishedTurnPublisher(
                  nc,
                  { maxInlineBytes: config.MEMORY_INGEST_MAX_INLINE_BYTES, maxPending: FINISHED_TURN_MAX_PENDING },
                  logger,
                ),
              }
            : {}),
          logger,
        }),
      )
      .then(new PublishStep()),
  });
  queue.serve(runner);

  const runEndWatch = new RunEndWatch(nc, queue, logger);
  const webhooks = new RunWebhooks(pool, compileRunWebhookSettings(config), logger);
  const a2aPush = new A2aPush(pool, webhooks, { ...tiers, retentionDays: config.RUN_WEBHOOK_RETENTION_DAYS }, logger);
  cancels.listen((runId, notice) => attempts.notice(runId, notice));
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
      options: {
        defaultTier: config.DEFAULT_TIER,
        maxConcurrentTurns: config.MAX_CONCURRENT_TURNS,
        idempotencyKeyTtlMs: config.IDEMPOTENCY_KEY_TTL_MS,
      },
      records,
      intake: {
        agents,
        idempotencyKeys,
        memoryRecall,
        outputSchemas,
        deletions: erasure.store,
        replays: new RunReplays({ records, steps, memory: memory.rpc, ...tiers }),
        multitask: new MultitaskAdmission({ stops, cancellation }),
      },
      queue,
      shouldProcess,
      calls: {
        cancellation,
        listing: new RunListing(pool),
        catalog,
        runnerStats: new RunnerStats(nc, { waitMs: config.CATALOG_DISCOVERY_WAIT_MS, logger }),
        breakers,
        toolTrials: new ToolTrials({
          gate,
          catalog,
          records: new ToolCallRecords(pool),
          profiles,
          defaultTier: config.DEFAULT_TIER,
          logger,
        }),
        taskToolCalls: new TaskToolCalls({ gate, profiles, defaultTier: config.DEFAULT_TIER, logger }),
        a2aPush,
      },
      webhooks,
      logger,
    }),
    ORCHESTRATOR_CALLERS,
  );
  addAgentServices(
    grpc,
    {
      store: agentStore,
      profiles,
      directory: agentDirectory,
      ...tiers,
      modelConnections: modelConnections?.connections,
      logger,
    },
    remoteAgents,
  );
  grpc.addService(
    CONVERSATION_SERVICE_NAME,
    conversationsV1.ConversationServiceService,
    conversationServiceImplementation({ store: new ConversationStore(pool), logger, webhooks }),
    CONVERSATION_CALLERS,
  );
  grpc.addService(ERASURE_SERVICE_NAME, erasureV1.ErasureServiceService, erasure.service, ERASURE_CALLERS);
  agentDirectory.start();
  const port = await grpc.start();
  erasure.start();
  const stopRecallGauge = memoryRecall.observeConcurrency();
  recovery.start();
  idempotencyKeys.start();
  expiries.start();
  runEndWatch.start();
  webhooks.start();
  a2aPush.start();
  // Runs a previous process left behind are picked up now rather than at the first sweep.
  void recovery.sweep();
  return {
    port,
    stop: () =>
      shutDown({
        first: [recovery, idempotencyKeys, expiries, erasure],
        queue,
        grpc,
        attempts,
        last: [
          runEndWatch,
          webhooks,
          a2aPush,
          agentDirectory,
          heartbeat,
          { stop: stopRecallGauge },
          { stop: () => modelConnections?.close() },
          { stop: () => remoteAgents.close() },
          { stop: () => connections.close({ drain: true }) },
        ],
        graceMs: config.SHUTDOWN_GRACE_MS,
        logger,
      }),
  };
}
