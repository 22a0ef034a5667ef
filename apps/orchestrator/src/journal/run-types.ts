import type { LoopResult } from '@platform/agent-loop';
import {
  NamedError,
  type ChatMessage,
  type RunOverrides,
  type RunProtocol,
  type TenantRole,
} from '@platform/contracts';
import type { MemoryRecallReport } from '../recall/recall-report.js';

/** Statuses of a run: queued and running are live; the rest are final. */
const LIVE_STATUSES = ['queued', 'running'] as const;
export type RunStatus = 'queued' | 'running' | 'completed' | 'waiting' | 'failed' | 'cancelled';

/** A finished run's result as stored: the loop's result, plus what the recall step injected. */
export type RunSummary = Omit<LoopResult, 'transcript' | 'messages'> & { memoryRecall?: MemoryRecallReport };

/** A decision on an approval request, sent with the message (the approvals API). */
export interface ApprovalDecisionInput {
  approvalId: string;
  decision: 'approve' | 'edit' | 'cancel';
  changes?: Record<string, unknown>;
}

/**
 * Where a child run comes from: the run whose tool call started it, that call, and the delegation
 * chain (profile names from the root run's to this run's own, so `chain.length - 1` is the depth).
 */
export interface RunLineage {
  parentRunId: string;
  parentCallId: string;
  chain: string[];
  /**
   * The only tools the child may use, within what its profile allows (a plan subtask that names
   * its tool); absent: the profile's allowlist alone.
   */
  tools?: string[];
}

/** What a newer message asked of the run in flight: stop at a step boundary, or be rolled back. */
type RunStopRequest = 'interrupt' | 'rollback';

export interface RunRecord {
  runId: string;
  tenantId: string;
  conversationId: string;
  status: RunStatus;
  stopReason: string | null;
  profile: string;
  content: string;
  tier: string;
  stream: boolean;
  timeZone: string;
  result: RunSummary | null;
  transcript: LoopResult['transcript'] | null;
  cancelRequested: boolean;
  createdAt: Date;
  finishedAt: Date | null;
  /** The trace of the request that created the run, when it had one. */
  traceId: string | null;
  /** When an orchestrator first took the run up; null while it waits in the queue. */
  startedAt?: Date | null;
  /** Who started it (what the run listing calls `source`). */
  startedBy?: RunStartedBy;
  /** Set for a child run (started by another run's delegation). */
  lineage?: RunLineage;
  /** A plan-and-execute run's plan (teams/plan/plan-view.ts), as it runs. */
  plan?: unknown;
  /** A newer message asked the run to stop (docs/conversations.md): at its next step boundary, or rolled back. */
  stopRequested?: RunStopRequest;
  /** The run of that newer message. */
  stoppedBy?: string;
  /** A steering message's run: the run it asked to join (migrations/0023); it joined when `stopReason` is `steered`. */
  steers?: string;
  agent?: RunAgent;
  overrides?: RunOverrides;
  subject?: string;
  /** The sender's tenant role (migrations/0020). */
  senderRole?: TenantRole;
  /** Set for a replay of another run (migrations/0022). */
  replay?: RunReplayOf;
  /** The edge protocol its message came in by (migrations/0025); absent for a message the platform sent. */
  protocol?: RunProtocol;
  /** What its protocol's request asked beyond the message, for the edge to read back (migrations/0026). */
  protocolRequest?: Record<string, unknown>;
}

/** A replay's original run and how many of its steps the replay answers from the original's journal. */
export interface RunReplayOf {
  runId: string;
  fromStep: number;
}

export interface NewRun {
  runId: string;
  tenantId: string;
  conversationId: string;
  profile: string;
  content: string;
  tier: string;
  stream: boolean;
  timeZone: string;
  approval?: ApprovalDecisionInput;
  /** What the run is for (default `message`): see the `kind` column in migrations/0002. */
  kind?: RunKind;
  /** Set when a trigger task sent the message (migrations/0005). */
  source?: RunSource;
  /** The W3C trace id of the request that created it (migrations/0006). */
  traceId?: string;
  /** Set for a child run (started by another run's delegation). */
  lineage?: RunLineage;
  /** The JSON Schema its answer must be valid against (the message's, else the profile's; migrations/0013). */
  outputSchema?: Record<string, unknown>;
  /** The agent version it runs under (migrations/0012): `builtin:<name>` and 0 for a built-in agent. */
  agent?: RunAgent;
  /** The message's per-run overrides (libs/contracts RunOverrides). */
  overrides?: RunOverrides;
  /** The end user who sent the message (the token's `sub`). */
  subject?: string;
  /** The sender's tenant role (migrations/0020); absent: a member's. */
  senderRole?: TenantRole;
  /** Set for a replay of another run (migrations/0022). */
  replay?: RunReplayOf;
  /** The edge protocol its message came in by (migrations/0025); absent for a message the platform sent. */
  protocol?: RunProtocol;
  /** What its protocol's request asked beyond the message, for the edge to read back (migrations/0026). */
  protocolRequest?: Record<string, unknown>;
  /** The client's Idempotency-Key, recorded by the statement that records the run (migrations/0014). */
  idempotency?: IdempotencyClaim;
  /**
   * Set for a message sent into a conversation (not a child run, not a notice): the statement
   * that records the run also creates or touches the conversation (migrations/0015), and records
   * nothing when the sender may not reach it (docs/conversations.md).
   */
  conversation?: ConversationEntry;
}

/** An Idempotency-Key a new run claims: recorded with the run, or the run is not recorded at all. */
export interface IdempotencyClaim {
  key: string;
  /** The SHA-256 (hex) of the request it was sent with. */
  fingerprint: string;
  /** How long the key names the run. */
  ttlMs: number;
}

/** What recording a message's run writes to its conversation, and who may. */
interface ConversationEntry {
  /** The sender ('' for none): the owner of a conversation it starts. */
  sender: string;
  /** The name of the agent the run runs under. */
  agentName: string;
  /** Whether the sender reaches every conversation of the tenant (a developer, an admin, a platform service). */
  seesAll: boolean;
}

/** A message to a conversation the sender may not reach: no run was recorded. */
export class ConversationClosedError extends NamedError {
  constructor(readonly conversationId: string) {
    super(`no conversation '${conversationId}'`);
  }
}

/** The agent and version a run runs under, fixed when it is created (a resume keeps them). */
export interface RunAgent {
  id: string;
  version: number;
}

export type RunKind = 'message' | 'agent_expired';

/** Who started a run: a user, a trigger task's fire, another run's delegation, or a platform notice. */
export type RunStartedBy = 'user' | 'trigger' | 'child' | 'notice';

/** Who sent a run's message: a trigger task's fire (the trigger service), or a user when absent. */
export interface RunSource {
  kind: 'trigger';
  taskId: string;
  triggerType: string;
  /** A decision on a triggered run's approval: the run that asked for it. */
  originRunId?: string;
}

/** What a tenant's finished turns used on one UTC day. */
export interface DailyUsage {
  day: string;
  turns: number;
  inputTokens: number;
  outputTokens: number;
}

/** A run this orchestrator holds: writes about it are fenced by `epoch`. */
export interface ClaimedRun extends NewRun {
  kind: RunKind;
  /** An agent-tool of the conversation may be waiting for the user (see `conversation_agents`). */
  agentsMayWait: boolean;
  epoch: number;
  /** Set when an earlier attempt already assembled the input (a resume). */
  input: ChatMessage[] | null;
  attempts: number;
  cancelRequested: boolean;
  /** Set when a newer message asked the run to stop before this attempt claimed it. */
  stopRequested?: RunStopRequest;
  createdAt: Date;
}

/**
 * What a write about a running run is fenced by: the run, its lease epoch, and its tenant and
 * conversation. Statements name all of them, so the planner finds the row through either key
 * (`runs_pkey` by run id, or `runs_one_running` by tenant and conversation) and never walks every
 * running run of `runs_one_running` with `run_id` as a filter (which it chose for `run_id = $1 AND
 * status = 'running'`: the partial index looks smaller than the primary key).
 */
export type RunFence = Pick<ClaimedRun, 'runId' | 'tenantId' | 'conversationId' | 'epoch'>;

/** Thrown when another orchestrator took the run over: this one must stop writing about it. */
export class LeaseLostError extends NamedError {
  constructor(runId: string) {
    super(`the lease on run ${runId} was taken over by another orchestrator`);
  }
}

export function isLive(status: RunStatus): boolean {
  return (LIVE_STATUSES as readonly string[]).includes(status);
}
