import type { AgentStepInput, ApprovalDecision } from '@platform/contracts';
import { errors, PlatformError } from '@platform/service-kit';
import type { CatalogEntry } from '@platform/tool-sdk';
import type pg from 'pg';
import type { CallFailure, StepResult } from './agent-step-client.js';
import type { AgentPoolOptions, Outcome } from './agent-pool-types.js';
import { gatedArguments } from './approval-gate.js';
import { CANCELLED, SCHEMA_VERSION_CHANGED, stateOf, stateVersion } from './entry-states.js';
import { logEntry } from './entry-log.js';
import { entryStore, stepCallId, type EntryPatch, type EntryRow, type EntryStatus } from './entry-store.js';
import { ErrorCodes } from './error-codes.js';

/** The runner call ends this long before the caller's deadline, so the answer can still be stored and sent. */
const DEADLINE_MARGIN_MS = 100;

/**
 * What a locked entry asks of its runner: the next agent step, or a gated call's approved run,
 * each behind the schema version guard, and the state the answer comes to.
 */
export class RunnerCalls {
  constructor(private readonly options: Pick<AgentPoolOptions, 'steps' | 'agents' | 'settings' | 'logger'>) {}

  /** One step on a locked live entry: schema version guard, runner call, new state. */
  async step(
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
    logEntry(this.options.logger, updated, 'agent step');
    return { row: updated };
  }

  /**
   * A gated call's decision: cancel ends it, nothing ran; approve (or edit) runs the tool once
   * with the approved arguments under the model's call id, and its answer finishes the entry. A
   * step that got no answer (timeout, no runner) leaves the entry waiting, as for an agent step.
   */
  async decideGate(
    client: pg.PoolClient,
    row: EntryRow,
    decision: ApprovalDecision,
    changes: Record<string, unknown> | undefined,
    callerDeadlineAt: number,
    credentialGrant: string | undefined,
  ): Promise<Outcome> {
    if (decision === 'cancel') {
      const cancelled = await entryStore.update(client, row.entry_id, CANCELLED);
      logEntry(this.options.logger, cancelled, 'tool call cancelled');
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
    logEntry(
      this.options.logger,
      updated,
      decision === 'edit' ? 'tool call ran as edited' : 'tool call ran as approved',
    );
    return { row: updated };
  }

  /** The catalog entry of an agent or tool whose runner is online, or UNAVAILABLE (the entry stays as it is). */
  async onlineEntry(name: string, refresh = false): Promise<CatalogEntry> {
    let found = refresh ? undefined : this.options.agents.lookup(name);
    if (found?.state !== 'online') {
      await this.options.agents.refresh();
      found = this.options.agents.lookup(name);
    }
    if (found.state === 'online') return found.entry;
    throw errors.unavailable(
      ErrorCodes.AGENT_UNAVAILABLE,
      `no runner serves '${name}' right now; the entry is unchanged, try again later`,
      { retryAfterSeconds: 5 },
    );
  }

  /** The new state after a step, or the error for a step that did not happen (the transaction then rolls back). */
  stateAfter(result: StepResult, agentName: string): EntryPatch & { status: EntryStatus } {
    return result.kind === 'output'
      ? stateOf(result.output, this.options.settings.inputTtlMs)
      : this.failedState(result, agentName);
  }

  /** When a runner call must end: the agent's own timeout, the pool's, and the caller's deadline less a margin. */
  deadline(descriptor: CatalogEntry | undefined, callerDeadlineAt: number): number {
    const own = Math.min(descriptor?.timeoutMs ?? Number.POSITIVE_INFINITY, this.options.settings.stepTimeoutMs);
    return Math.min(Date.now() + own, callerDeadlineAt - DEADLINE_MARGIN_MS);
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
          ErrorCodes.AGENT_UNAVAILABLE,
          `${result.message}; the agent entry is unchanged, try again later`,
          { retryAfterSeconds: 1 },
        );
      case 'timeout':
        throw new PlatformError(
          'deadline_exceeded',
          ErrorCodes.AGENT_STEP_TIMEOUT,
          `${result.message}; the agent entry is unchanged, and a retry sends the same step call id so the runner can answer it without running the step twice (agent '${agentName}')`,
        );
    }
  }
}
