import { randomUUID } from 'node:crypto';
import type { AgentStepInput, ApprovalDecision } from '@platform/contracts';
import { errors, inTransaction, PlatformError, type Logger } from '@platform/service-kit';
import type { CatalogEntry, ToolLookup } from '@platform/tool-sdk';
import type pg from 'pg';
import type { AgentStepCall, ApprovedToolCall, CallFailure, StepResult, ToolRunResult } from './agent-step-client.js';
import { gateApprovalRequest, gatedArguments } from './approval-gate.js';
import {
  approvalNotFound,
  CANCELLED,
  entryNotFound,
  notLive,
  notWaitingFor,
  SCHEMA_VERSION_CHANGED,
  stateOf,
  stateVersion,
} from './entry-states.js';
import type { AgentPoolConfig } from './config.js';
import { decidedState, userDecisionState, type UserDecisionInput } from './user-decision.js';
import {
  deriveEntryId,
  entryStore,
  type CallKey,
  isLive,
  stepCallId,
  type EntryPatch,
  type EntryRow,
  type EntryKind,
  type EntryStatus,
  type LockedRow,
  type SourceKind,
} from './entry-store.js';

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

export type PoolSettings = Pick<
  AgentPoolConfig,
  | 'MAX_LIVE_AGENTS_PER_TENANT'
  | 'AGENT_INPUT_TTL_MS'
  | 'AGENT_PAUSED_TTL_MS'
  | 'AGENT_STEP_TIMEOUT_MS'
  | 'APPROVAL_TIMEOUT_MINUTES'
>;

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
}

/** What a locked change comes to: the row as it now is, and an error to give the caller after the commit. */
interface Outcome {
  row: EntryRow;
  reject?: PlatformError;
}

/** The runner call ends this long before the caller's deadline, so the answer can still be stored and sent. */
const DEADLINE_MARGIN_MS = 100;

/**
 * The pool's lifecycle logic. Every change locks its entry's row for the whole step (runner call
 * included), so one entry never runs two steps at once and a crash mid-step rolls back to the
 * state before it; the next attempt sends the same deterministic step call id.
 */
export class AgentPool {
  constructor(private readonly options: AgentPoolOptions) {}

  private get db(): pg.Pool {
    return this.options.db;
  }

  private get settings(): PoolSettings {
    return this.options.settings;
  }

  /**
   * Runs the agent's first step and stores the entry, whatever state it reached. A repeated call
   * (the same call id in the same run, see CallKey) returns the stored entry; concurrent repeats
   * wait for the first to finish.
   */
  async start(input: StartInput): Promise<{ entry: EntryRow; duplicate: boolean }> {
    const key: CallKey = input;
    const existing = await entryStore.findByCall(this.db, key);
    if (existing) return { entry: existing, duplicate: true };
    await this.checkLimit(this.db, input.tenantId);
    if (input.approvalGate) return this.startGate(input);
    if (input.userDecision)
      return this.startWaiting(
        input,
        'user_decision',
        userDecisionState(input.agentName, input.userDecision),
        'decision waits for the user',
      );
    const entryId = deriveEntryId(key);
    const lookup = this.options.agents.lookup(input.agentName);
    const descriptor = lookup.state === 'online' ? lookup.entry : undefined;
    if (descriptor && descriptor.kind !== 'agent') {
      throw new PlatformError(
        'failed_precondition',
        'NOT_AN_AGENT',
        `'${input.agentName}' is a plain tool, not an agent-tool; call it as a tool`,
      );
    }
    return inTransaction(this.db, async (client) => {
      await entryStore.lockStart(client, key);
      const raced = await entryStore.findByCall(client, key);
      if (raced) return { entry: raced, duplicate: true };
      const result = await this.options.steps.step({
        agentName: input.agentName,
        callId: stepCallId(entryId, 1),
        tenantId: input.tenantId,
        conversationId: input.conversationId,
        runId: input.runId,
        request: { arguments: input.arguments, agent: { phase: 'start' } },
        deadlineAt: this.deadline(descriptor, input.deadlineAt),
        sideEffect: descriptor?.sideEffect,
        dedupe: descriptor?.dedupe,
        credentialGrant: input.credentialGrant,
      });
      const state = {
        schema_version: descriptor?.agentSchemaVersion ?? '',
        ...this.stateAfter(result, input.agentName),
      };
      if (isLive(state.status)) {
        // Starts of one tenant serialize only here, for the count: the runner calls ran in parallel.
        await entryStore.lockTenantLimit(client, input.tenantId);
        await this.checkLimit(client, input.tenantId);
      }
      const entry = await entryStore.insert(
        client,
        {
          entry_id: entryId,
          tenant_id: input.tenantId,
          conversation_id: input.conversationId,
          run_id: input.runId ?? null,
          call_id: input.callId,
          agent_name: input.agentName,
          kind: 'agent',
          arguments: input.arguments,
          source_kind: input.source.kind,
          source_task_id: input.source.taskId ?? null,
        },
        { ...state, step: 1 },
      );
      this.logStep(entry, 'agent started');
      return { entry, duplicate: false };
    });
  }

  /**
   * Stores a plain tool's call waiting for approval of its arguments; nothing runs. The tool's
   * input schema hash is kept: a deploy that changes the schema while the call waits discards it.
   */
  private async startGate(input: StartInput): Promise<{ entry: EntryRow; duplicate: boolean }> {
    const tool = await this.onlineEntry(input.agentName);
    if (tool.kind !== 'tool') {
      throw new PlatformError(
        'failed_precondition',
        'NOT_A_PLAIN_TOOL',
        `'${input.agentName}' is an agent-tool, which asks for approval itself; start it without approval_gate`,
      );
    }
    const { approval, prompt } = gateApprovalRequest(
      input.agentName,
      input.arguments,
      this.settings.APPROVAL_TIMEOUT_MINUTES,
    );
    const state = {
      status: 'waiting_for_approval' as const,
      schema_version: tool.schemaHash,
      collected: input.arguments,
      prompt,
      approval_id: randomUUID(),
      approval,
      expires_in_ms: approval.timeoutMinutes * 60_000,
      step: 0,
    };
    return this.startWaiting(input, 'approval_gate', state, 'tool call waits for approval');
  }

  /** Stores a waiting entry nobody runs (a gated call, a user decision), counted against the tenant's limit. */
  private startWaiting(
    input: StartInput,
    kind: EntryKind,
    state: EntryPatch & { status: EntryStatus; schema_version: string },
    what: string,
  ): Promise<{ entry: EntryRow; duplicate: boolean }> {
    const key: CallKey = input;
    return inTransaction(this.db, async (client) => {
      await entryStore.lockStart(client, key);
      const raced = await entryStore.findByCall(client, key);
      if (raced) return { entry: raced, duplicate: true };
      await entryStore.lockTenantLimit(client, input.tenantId);
      await this.checkLimit(client, input.tenantId);
      const entry = await entryStore.insert(
        client,
        {
          entry_id: deriveEntryId(key),
          tenant_id: input.tenantId,
          conversation_id: input.conversationId,
          run_id: input.runId ?? null,
          call_id: input.callId,
          agent_name: input.agentName,
          kind,
          arguments: input.arguments,
          source_kind: input.source.kind,
          source_task_id: input.source.taskId ?? null,
        },
        state,
      );
      this.logStep(entry, what);
      return { entry, duplicate: false };
    });
  }

  /** Gives a waiting_for_input entry the user's answer (step phase `input`). */
  continue(input: ContinueInput): Promise<EntryRow> {
    return this.change(input.tenantId, { entryId: input.entryId }, entryNotFound, async (client, row) => {
      if (row.status !== 'waiting_for_input') return { row, reject: notWaitingFor('waiting_for_input', row) };
      return this.step(
        client,
        row,
        { phase: 'input', collected: row.collected, fields: input.fields, message: input.message },
        input.deadlineAt,
        input.credentialGrant,
      );
    });
  }

  /** Gives a waiting_for_approval entry the user's decision (step phase `approval`). */
  resolve(input: ResolveInput): Promise<EntryRow> {
    return this.change(input.tenantId, { approvalId: input.approvalId }, approvalNotFound, async (client, row) => {
      if (row.status !== 'waiting_for_approval' || !row.approval)
        return { row, reject: notWaitingFor('waiting_for_approval', row) };
      const approval = row.approval;
      if (input.decision && !approval.options.includes(input.decision)) {
        return {
          row,
          reject: errors.invalidArgument(
            'DECISION_NOT_OFFERED',
            `decision '${input.decision}' is not offered; the options are ${approval.options.join(', ')}`,
          ),
        };
      }
      if (input.changes && Object.keys(input.changes).length > 0 && !approval.allowModification) {
        return {
          row,
          reject: errors.invalidArgument('MODIFICATION_NOT_ALLOWED', 'this approval request does not accept changes'),
        };
      }
      if (row.kind === 'user_decision') {
        const decided = await entryStore.update(
          client,
          row.entry_id,
          decidedState(input.decision, input.changes, input.reply),
        );
        this.logStep(decided, 'user decided');
        return { row: decided };
      }
      if (row.kind === 'approval_gate') {
        // Nobody is there to read a reply: a gated call takes a decision.
        if (!input.decision)
          return {
            row,
            reject: errors.invalidArgument(
              'DECISION_REQUIRED',
              'a tool call waiting for approval takes a decision: approve, edit or cancel',
            ),
          };
        return this.decideGate(client, row, input.decision, input.changes, input.deadlineAt, input.credentialGrant);
      }
      const step: AgentStepInput = {
        phase: 'approval',
        collected: row.collected,
        ...(input.decision ? { decision: input.decision } : {}),
        ...(input.changes ? { changes: input.changes } : {}),
        ...(input.reply !== undefined ? { reply: input.reply } : {}),
      };
      return this.step(client, row, step, input.deadlineAt, input.credentialGrant);
    });
  }

  async get(tenantId: string, entryId: string): Promise<EntryRow> {
    const row = await entryStore.get(this.db, tenantId, entryId);
    if (!row) throw entryNotFound();
    return row;
  }

  /** Live entries not past their expiry, oldest first. */
  listPending(tenantId: string, conversationId: string | undefined): Promise<EntryRow[]> {
    return entryStore.listLive(this.db, tenantId, conversationId);
  }

  /** Parks a waiting entry until resumed (or until AGENT_PAUSED_TTL_MS passes). Pausing a paused entry is a no-op. */
  pause(tenantId: string, entryId: string): Promise<EntryRow> {
    return this.change(tenantId, { entryId }, entryNotFound, async (client, row) => {
      if (row.status === 'paused') return { row };
      if (row.status !== 'waiting_for_input' && row.status !== 'waiting_for_approval')
        return { row, reject: notLive(row) };
      const paused = await entryStore.update(client, row.entry_id, {
        status: 'paused',
        paused_from: row.status,
        expires_in_ms: this.settings.AGENT_PAUSED_TTL_MS,
      });
      this.logStep(paused, 'agent paused');
      return { row: paused };
    });
  }

  /** Returns a paused entry to its wait, with a fresh expiry. Resuming a waiting entry is a no-op. */
  resume(tenantId: string, entryId: string): Promise<EntryRow> {
    return this.change(tenantId, { entryId }, entryNotFound, async (client, row) => {
      if (row.status === 'waiting_for_input' || row.status === 'waiting_for_approval') return { row };
      if (row.status !== 'paused' || !row.paused_from) return { row, reject: notLive(row) };
      const wait =
        row.paused_from === 'waiting_for_approval' && row.approval
          ? row.approval.timeoutMinutes * 60_000
          : this.settings.AGENT_INPUT_TTL_MS;
      const resumed = await entryStore.update(client, row.entry_id, {
        status: row.paused_from,
        paused_from: null,
        expires_in_ms: wait,
      });
      this.logStep(resumed, 'agent resumed');
      return { row: resumed };
    });
  }

  /** Cancels a live entry; its result is the cancellation message for the model. Cancelling twice is a no-op. */
  cancel(tenantId: string, entryId: string): Promise<EntryRow> {
    return this.change(tenantId, { entryId }, entryNotFound, async (client, row) => {
      if (row.status === 'cancelled') return { row };
      if (!isLive(row.status)) return { row, reject: notLive(row) };
      const cancelled = await entryStore.update(client, row.entry_id, CANCELLED);
      this.logStep(cancelled, 'agent cancelled');
      return { row: cancelled };
    });
  }

  /**
   * Locks the entry, expires it first when its wait ran out, and applies `fn`. A rejection `fn`
   * returns is thrown after the commit (so an expiry found on the way is kept); anything `fn`
   * throws rolls the whole change back.
   */
  private async change(
    tenantId: string,
    by: { entryId: string } | { approvalId: string },
    notFound: () => PlatformError,
    fn: (client: pg.PoolClient, row: EntryRow) => Promise<Outcome>,
  ): Promise<EntryRow> {
    let expired = false;
    const outcome = await inTransaction(this.db, async (client) => {
      const locked: LockedRow | undefined = await entryStore.lock(client, tenantId, by);
      if (!locked) throw notFound();
      const { due, ...row } = locked;
      if (!due) return fn(client, row);
      const expiredRow = await entryStore.expire(client, row.entry_id);
      expired = true;
      this.logStep(expiredRow, 'agent expired');
      return fn(client, expiredRow);
    });
    if (expired) this.options.onExpired?.();
    if (outcome.reject) throw outcome.reject;
    return outcome.row;
  }

  /** One step on a locked live entry: schema version guard, runner call, new state. */
  private async step(
    client: pg.PoolClient,
    row: EntryRow,
    agent: AgentStepInput,
    callerDeadlineAt: number,
    credentialGrant?: string,
  ): Promise<Outcome> {
    const checked = await this.checkedRunner(client, row);
    if ('discarded' in checked) return { row: checked.discarded };
    const descriptor = checked.runner;
    const result = await this.options.steps.step({
      agentName: row.agent_name,
      callId: stepCallId(row.entry_id, row.step + 1),
      tenantId: row.tenant_id,
      conversationId: row.conversation_id,
      runId: row.run_id ?? undefined,
      request: { arguments: row.arguments, agent },
      deadlineAt: this.deadline(descriptor, callerDeadlineAt),
      sideEffect: descriptor.sideEffect,
      dedupe: descriptor.dedupe,
      credentialGrant,
    });
    if (result.kind === 'output' && result.output.schemaVersion !== row.schema_version) {
      // A runner deployed between the check and the call: keep a finished action, never a mixed state.
      if (result.output.state !== 'completed')
        return { row: await this.discard(client, row, result.output.schemaVersion, row.step + 1) };
      this.options.logger.warn(
        {
          entryId: row.entry_id,
          agent: row.agent_name,
          saved: row.schema_version,
          current: result.output.schemaVersion,
        },
        'agent completed under a new schema version; keeping its result',
      );
    }
    const updated = await entryStore.update(client, row.entry_id, {
      ...this.stateAfter(result, row.agent_name),
      step: row.step + 1,
    });
    this.logStep(updated, 'agent step');
    return { row: updated };
  }

  /**
   * A gated call's decision: cancel ends it, nothing ran; approve (or edit) runs the tool once
   * with the approved arguments under the model's call id, and its answer finishes the entry. A
   * step that got no answer (timeout, no runner) leaves the entry waiting, as for an agent step.
   */
  private async decideGate(
    client: pg.PoolClient,
    row: EntryRow,
    decision: ApprovalDecision,
    changes: Record<string, unknown> | undefined,
    callerDeadlineAt: number,
    credentialGrant: string | undefined,
  ): Promise<Outcome> {
    if (decision === 'cancel') {
      const cancelled = await entryStore.update(client, row.entry_id, CANCELLED);
      this.logStep(cancelled, 'tool call cancelled');
      return { row: cancelled };
    }
    const checked = await this.checkedRunner(client, row);
    if ('discarded' in checked) return { row: checked.discarded };
    const tool = checked.runner;
    const args = gatedArguments(row.collected, decision, changes);
    const result = await this.options.steps.runTool({
      toolName: row.agent_name,
      callId: row.call_id,
      tenantId: row.tenant_id,
      conversationId: row.conversation_id,
      runId: row.run_id ?? undefined,
      arguments: args,
      deadlineAt: this.deadline(tool, callerDeadlineAt),
      sideEffect: tool.sideEffect,
      dedupe: tool.dedupe,
      credentialGrant,
    });
    const state: EntryPatch =
      result.kind === 'output'
        ? {
            status: 'completed',
            result: result.output ?? null,
            paused_from: null,
            prompt: null,
            missing: null,
            expires_at: null,
          }
        : this.failedState(result, row.agent_name);
    const updated = await entryStore.update(client, row.entry_id, { ...state, collected: args, step: row.step + 1 });
    this.logStep(updated, decision === 'edit' ? 'tool call ran as edited' : 'tool call ran as approved');
    return { row: updated };
  }

  /**
   * The runner of a locked entry, its saved state checked against the runner's current version
   * (a mismatch discards the entry: it is never run). The catalog may lag behind a deploy
   * (either way), so it is asked again before anything is discarded.
   */
  private async checkedRunner(
    client: pg.PoolClient,
    row: EntryRow,
  ): Promise<{ runner: CatalogEntry } | { discarded: EntryRow }> {
    const runner = await this.onlineEntry(row.agent_name);
    if (stateVersion(row.kind, runner) === row.schema_version) return { runner };
    const again = await this.onlineEntry(row.agent_name, true);
    const current = stateVersion(row.kind, again);
    if (current === row.schema_version) return { runner: again };
    return { discarded: await this.discard(client, row, current, row.step) };
  }

  /** The entry's fields were saved under another schema version: end it, never run it. */
  private async discard(
    client: pg.PoolClient,
    row: EntryRow,
    current: string | undefined,
    step: number,
  ): Promise<EntryRow> {
    const now = current === undefined ? 'no schema version' : `schema version ${current}`;
    this.options.logger.warn(
      {
        entryId: row.entry_id,
        tenantId: row.tenant_id,
        agent: row.agent_name,
        kind: row.kind,
        saved: row.schema_version,
        current: current ?? null,
      },
      'discarded a waiting entry: its schema version changed',
    );
    const message =
      row.kind === 'approval_gate'
        ? `The tool '${row.agent_name}' changed its input (saved under schema ${row.schema_version}, now ${current ?? 'not a plain tool'}) while the call waited for approval, ` +
          'so the call was discarded and nothing was done. Call the tool again to start over.'
        : `The agent '${row.agent_name}' changed its fields (saved under schema version ${row.schema_version}, now ${now}) while this request waited, ` +
          'so the waiting request was discarded and nothing was done. Call the agent again to start over.';
    return entryStore.update(client, row.entry_id, {
      status: 'error',
      paused_from: null,
      error_code: SCHEMA_VERSION_CHANGED,
      error_message: message,
      prompt: null,
      missing: null,
      expires_at: null,
      step,
    });
  }

  /** The catalog entry of an agent or tool whose runner is online, or UNAVAILABLE (the entry stays as it is). */
  private async onlineEntry(name: string, refresh = false): Promise<CatalogEntry> {
    let found = refresh ? undefined : this.options.agents.lookup(name);
    if (found?.state !== 'online') {
      await this.options.agents.refresh();
      found = this.options.agents.lookup(name);
    }
    if (found.state === 'online') return found.entry;
    throw errors.unavailable(
      'AGENT_UNAVAILABLE',
      `no runner serves '${name}' right now; the entry is unchanged, try again later`,
      { retryAfterSeconds: 5 },
    );
  }

  /** The new state after a step, or the error for a step that did not happen (the transaction then rolls back). */
  private stateAfter(result: StepResult, agentName: string): EntryPatch & { status: EntryStatus } {
    return result.kind === 'output'
      ? stateOf(result.output, this.settings.AGENT_INPUT_TTL_MS)
      : this.failedState(result, agentName);
  }

  /** A call the runner refused ends the entry in status error; one that did not happen is thrown (rolled back). */
  private failedState(result: CallFailure, agentName: string): EntryPatch & { status: EntryStatus } {
    switch (result.kind) {
      case 'rejected':
        return {
          status: 'error',
          error_code: result.code,
          error_message: result.message,
          paused_from: null,
          prompt: null,
          missing: null,
          expires_at: null,
        };
      case 'unavailable':
        throw errors.unavailable(
          'AGENT_UNAVAILABLE',
          `${result.message}; the agent entry is unchanged, try again later`,
          { retryAfterSeconds: 1 },
        );
      case 'timeout':
        throw new PlatformError(
          'deadline_exceeded',
          'AGENT_STEP_TIMEOUT',
          `${result.message}; the agent entry is unchanged, and a retry sends the same step call id so the runner can answer it without running the step twice (agent '${agentName}')`,
        );
    }
  }

  private deadline(descriptor: CatalogEntry | undefined, callerDeadlineAt: number): number {
    const own = Math.min(descriptor?.timeoutMs ?? Number.POSITIVE_INFINITY, this.settings.AGENT_STEP_TIMEOUT_MS);
    return Math.min(Date.now() + own, callerDeadlineAt - DEADLINE_MARGIN_MS);
  }

  private async checkLimit(db: pg.ClientBase | pg.Pool, tenantId: string): Promise<void> {
    const live = await entryStore.countLive(db, tenantId);
    const limit = this.settings.MAX_LIVE_AGENTS_PER_TENANT;
    if (live >= limit) {
      throw new PlatformError(
        'resource_exhausted',
        'TOO_MANY_AGENTS',
        `this tenant already has ${live} agents waiting for the user (the limit is ${limit}); answer, cancel or let some expire before starting another`,
        { details: { live, limit } },
      );
    }
  }

  private logStep(row: EntryRow, msg: string): void {
    this.options.logger.info(
      {
        entryId: row.entry_id,
        tenantId: row.tenant_id,
        agent: row.agent_name,
        status: row.status,
        step: row.step,
        errorCode: row.error_code ?? undefined,
      },
      msg,
    );
  }
}
