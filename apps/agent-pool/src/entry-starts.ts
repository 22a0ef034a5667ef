import { randomUUID } from 'node:crypto';
import { inTransaction, PlatformError } from '@platform/service-kit';
import type pg from 'pg';
import type { AgentPoolOptions, StartInput } from './agent-pool-types.js';
import { gateApprovalRequest } from './approval-gate.js';
import { logEntry } from './entry-log.js';
import {
  deriveEntryId,
  entryStore,
  isLive,
  stepCallId,
  type CallKey,
  type EntryKind,
  type EntryPatch,
  type EntryRow,
  type EntryStatus,
  type NewEntry,
} from './entry-store.js';
import type { RunnerCalls } from './runner-calls.js';
import { userDecisionState } from './user-decision.js';
import { ErrorCodes } from './error-codes.js';

type Started = { entry: EntryRow; duplicate: boolean };

/**
 * How entries begin: an agent's first step, a plain tool's call waiting for approval, or a
 * decision waiting for the user. Each counts against the tenant's limit of live entries, and a
 * repeated call returns the entry its first call stored.
 */
export class EntryStarts {
  constructor(
    private readonly options: Pick<AgentPoolOptions, 'db' | 'agents' | 'steps' | 'settings' | 'logger'>,
    private readonly runner: RunnerCalls,
  ) {}

  /**
   * Runs the agent's first step and stores the entry, whatever state it reached. A repeated call
   * (the same call id in the same run, see CallKey) returns the stored entry; concurrent repeats
   * wait for the first to finish.
   */
  async start(input: StartInput): Promise<Started> {
    const { db } = this.options;
    const key: CallKey = input;
    const existing = await entryStore.findByCall(db, key);
    if (existing) return { entry: existing, duplicate: true };
    await this.checkLimit(db, input.tenantId);
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
        ErrorCodes.NOT_AN_AGENT,
        `'${input.agentName}' is a plain tool, not an agent-tool; call it as a tool`,
      );
    }
    return inTransaction(db, async (client) => {
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
        deadlineAt: this.runner.deadline(descriptor, input.deadlineAt),
        sideEffect: descriptor?.sideEffect,
        dedupe: descriptor?.dedupe,
        credentialGrant: input.credentialGrant,
      });
      const state = {
        schema_version: descriptor?.agentSchemaVersion ?? '',
        ...this.runner.stateAfter(result, input.agentName),
      };
      if (isLive(state.status)) {
        // Starts of one tenant serialize only here, for the count: the runner calls ran in parallel.
        await entryStore.lockTenantLimit(client, input.tenantId);
        await this.checkLimit(client, input.tenantId);
      }
      const entry = await entryStore.insert(client, newEntry(input, entryId, 'agent'), { ...state, step: 1 });
      logEntry(this.options.logger, entry, 'agent started');
      return { entry, duplicate: false };
    });
  }

  /**
   * Stores a plain tool's call waiting for approval of its arguments; nothing runs. The tool's
   * input schema hash is kept: a deploy that changes the schema while the call waits discards it.
   */
  private async startGate(input: StartInput): Promise<Started> {
    const tool = await this.runner.onlineEntry(input.agentName);
    if (tool.kind !== 'tool') {
      throw new PlatformError(
        'failed_precondition',
        ErrorCodes.NOT_A_PLAIN_TOOL,
        `'${input.agentName}' is an agent-tool, which asks for approval itself; start it without approval_gate`,
      );
    }
    const { approval, prompt } = gateApprovalRequest(
      input.agentName,
      input.arguments,
      this.options.settings.approvalTimeoutMinutes,
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
  ): Promise<Started> {
    const key: CallKey = input;
    return inTransaction(this.options.db, async (client) => {
      await entryStore.lockStart(client, key);
      const raced = await entryStore.findByCall(client, key);
      if (raced) return { entry: raced, duplicate: true };
      await entryStore.lockTenantLimit(client, input.tenantId);
      await this.checkLimit(client, input.tenantId);
      const entry = await entryStore.insert(client, newEntry(input, deriveEntryId(key), kind), state);
      logEntry(this.options.logger, entry, what);
      return { entry, duplicate: false };
    });
  }

  private async checkLimit(db: pg.ClientBase | pg.Pool, tenantId: string): Promise<void> {
    const live = await entryStore.countLive(db, tenantId);
    const limit = this.options.settings.maxLivePerTenant;
    if (live >= limit) {
      throw new PlatformError(
        'resource_exhausted',
        ErrorCodes.TOO_MANY_AGENTS,
        `this tenant already has ${live} agents waiting for the user (the limit is ${limit}); answer, cancel or let some expire before starting another`,
        { details: { live, limit } },
      );
    }
  }
}

/** The row of a new entry, from its start. */
function newEntry(input: StartInput, entryId: string, kind: EntryKind): NewEntry {
  return {
    entry_id: entryId,
    tenant_id: input.tenantId,
    conversation_id: input.conversationId,
    run_id: input.runId ?? null,
    call_id: input.callId,
    agent_name: input.agentName,
    kind,
    arguments: input.arguments,
    source_kind: input.source.kind,
    source_task_id: input.source.taskId ?? null,
  };
}
