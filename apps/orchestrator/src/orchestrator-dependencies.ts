import type { Logger } from '@platform/service-kit';
import type { ToolCatalog } from '@platform/tool-sdk';
import type { RunRecords } from './journal/run-records.js';
import type { ConversationQueue } from './ordering/conversation-queue.js';
import type { ShouldProcess } from './admission/should-process.js';
import type { AgentResolver } from './tenant-agents/agent-resolver.js';
import type { RunCancellation } from './run-cancellation.js';
import type { MultitaskAdmission } from './ordering/multitask.js';
import type { RunListing } from './listing/run-listing.js';
import type { RunnerStats } from './runner-stats.js';
import type { ToolBreakers } from './tool-breakers.js';
import type { MemoryRecall } from './recall/memory-recall.js';
import type { DeletionStore } from './erasure/deletion-store.js';
import type { TaskToolCalls } from './tool-calls/task-tool-calls.js';
import type { ToolTrials } from './tool-calls/tool-trials.js';
import type { OutputSchemas } from './structured/output-schemas.js';
import type { IdempotencyKeys } from './idempotency/idempotency-keys.js';
import type { RunWebhooks } from './webhooks/run-webhooks.js';
import type { A2aPush } from './a2a-push/a2a-push.js';
import type { RunReplays } from './replays/run-replays.js';

/** What the calls other than HandleMessage use: cancelling and listing runs, the catalog, tool calls. */
interface RunAndToolCalls {
  /** Cancels a run and its child runs. */
  cancellation: RunCancellation;
  /** Lists a tenant's runs (ListRuns). */
  listing: RunListing;
  catalog: ToolCatalog;
  /** The runner replicas' `$SRV.STATS`, for the catalog (ListTools). */
  runnerStats: RunnerStats;
  /** This process's circuit breakers, shown with the catalog (ListTools). */
  breakers: ToolBreakers;
  /** Tool calls clients try directly (CallTool, GetToolCall). */
  toolTrials: ToolTrials;
  /** Tool calls of trigger tasks (condition polls, custom executors), through the same gate. */
  taskToolCalls: TaskToolCalls;
  /** A2A push notification configs of tasks (their calls). */
  a2aPush: Pick<A2aPush, 'handlers'>;
}

/** The service's own settings. */
interface OrchestratorServiceOptions {
  /** The tier of a message that names none. */
  defaultTier: string;
  /** New messages are refused (OVERLOADED) while this many turns run in this replica. */
  maxConcurrentTurns: number;
  /** How long an Idempotency-Key names its run. */
  idempotencyKeyTtlMs: number;
}

/** What a new message is checked and prepared with before its run is admitted. */
interface MessageIntake {
  /** What a message names, resolved to the agent version its run runs under. */
  agents: Pick<AgentResolver, 'forMessage'>;
  /** The tenants' Idempotency-Keys (a keyed message's run is recorded with its key). */
  idempotencyKeys: Pick<IdempotencyKeys, 'find'>;
  /** Starts a new message's recall as it arrives (absent: the run recalls when it starts). */
  memoryRecall?: Pick<MemoryRecall, 'prefetch'>;
  /** Compiles a message's output schema (refused here when it does not compile). */
  outputSchemas: Pick<OutputSchemas, 'fromJson'>;
  /** What a message does about its conversation's run in flight (its `multitask` policy). */
  multitask: MultitaskAdmission;
  /** Conversations being deleted take no new message (erasure/). */
  deletions?: Pick<DeletionStore, 'isDeleting'>;
  /** A message that replays a run (`replay_of`): checked, given the run's content and agent, its conversation forked. */
  replays?: Pick<RunReplays, 'prepare'>;
}

export interface OrchestratorDependencies {
  options: OrchestratorServiceOptions;
  records: RunRecords;
  intake: MessageIntake;
  queue: ConversationQueue;
  shouldProcess: ShouldProcess;
  calls: RunAndToolCalls;
  /** Webhooks when a run ends: a new run's target, and the settings and deliveries calls. */
  webhooks: Pick<RunWebhooks, 'checkUrl' | 'recordTarget' | 'handlers'>;
  logger: Logger;
}
