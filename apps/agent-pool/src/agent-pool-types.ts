import type { ApprovalDecision } from '@platform/contracts';
import type { Logger, PlatformError } from '@platform/service-kit';
import type { ToolLookup } from '@platform/tool-sdk';
import type pg from 'pg';
import type { AgentStepCall, ApprovedToolCall, StepResult, ToolRunResult } from './agent-step-client.js';
import type { CallKey, EntryRow, SourceKind } from './entry-store.js';
import type { UserDecisionInput } from './user-decision.js';

/** The live catalog of runners, as far as the pool needs it (tool-sdk's ToolCatalog). */
interface AgentDirectory {
  lookup(name: string): ToolLookup;
  refresh(): Promise<void>;
}

/** Sends one agent step, or a gated tool's approved call, to a runner (AgentStepClient). */
interface StepSender {
  step(call: AgentStepCall): Promise<StepResult>;
  runTool(call: ApprovedToolCall): Promise<ToolRunResult>;
}

/** The pool's tuning, compiled from the environment at boot (server.ts). */
export interface PoolSettings {
  /** Live entries (waiting or paused) one tenant may have. */
  maxLivePerTenant: number;
  /** How long an entry waits for the user's input before it expires. */
  inputTtlMs: number;
  /** How long a paused entry is kept before it expires. */
  pausedTtlMs: number;
  /** Longest one runner call may take (also capped by the agent's own timeout and the caller's deadline). */
  stepTimeoutMs: number;
  /** Approval timeout of a gated call (approval requests of agents normally carry their own). */
  approvalTimeoutMinutes: number;
}

export interface AgentPoolOptions {
  db: pg.Pool;
  steps: StepSender;
  agents: AgentDirectory;
  settings: PoolSettings;
  logger: Logger;
  /** Called after a call expired an entry it found past its expiry (its event waits in the outbox). */
  onExpired?: () => void;
}

/** A start: the call (its key says which repeats are the same start), the agent, and what the call carries. */
export interface StartInput extends CallKey {
  agentName: string;
  arguments: Record<string, unknown>;
  source: { kind: SourceKind; taskId: string | undefined };
  /** A plain tool that requires approval: store the call waiting for approval, run nothing (see approval-gate.ts). */
  approvalGate: boolean;
  /** The caller's deadline (epoch ms); the runner call ends before it. */
  deadlineAt: number;
  /** Sent to the runner with the step (an agent that declares credentials); never stored. */
  credentialGrant?: string | undefined;
  /** A decision the platform asks the user for itself: store it waiting for approval, run nothing (see user-decision.ts). */
  userDecision?: UserDecisionInput | undefined;
}

export interface ContinueInput {
  tenantId: string;
  entryId: string;
  fields: Record<string, unknown>;
  message: string;
  deadlineAt: number;
  credentialGrant?: string | undefined;
}

export interface ResolveInput {
  tenantId: string;
  approvalId: string;
  decision: ApprovalDecision | undefined;
  changes: Record<string, unknown> | undefined;
  reply: string | undefined;
  deadlineAt: number;
  credentialGrant?: string | undefined;
  /** The end user who decided (kept on the entry once the decision is taken). */
  decidedBy?: string | undefined;
}

/** What a locked change comes to: the row as it now is, and an error to give the caller after the commit. */
export interface Outcome {
  row: EntryRow;
  reject?: PlatformError;
}
