import type { AgentStepInput } from '@platform/contracts';
import { errors, inTransaction, type PlatformError } from '@platform/service-kit';
import type pg from 'pg';
import type { AgentPoolOptions, ContinueInput, Outcome, ResolveInput, StartInput } from './agent-pool-types.js';
import { approvalNotFound, CANCELLED, entryNotFound, notLive, notWaitingFor } from './entry-states.js';
import { logEntry } from './entry-log.js';
import { EntryStarts } from './entry-starts.js';
import { deleteConversationEntries } from './conversation-deletion.js';
import { entryStore, isLive, type EntryRow, type LockedRow } from './entry-store.js';
import { RunnerCalls } from './runner-calls.js';
import { decidedState } from './user-decision.js';
import { ErrorCodes } from './error-codes.js';

/**
 * The pool's lifecycle logic. Every change locks its entry's row for the whole step (runner call
 * included), so one entry never runs two steps at once and a crash mid-step rolls back to the
 * state before it; the next attempt sends the same deterministic step call id. Starts are in
 * entry-starts.ts, the runner calls of a locked entry in runner-calls.ts.
 */
export class AgentPool {
  private readonly runner: RunnerCalls;
  private readonly starts: EntryStarts;

  constructor(private readonly options: AgentPoolOptions) {
    this.runner = new RunnerCalls(options);
    this.starts = new EntryStarts(options, this.runner);
  }

  /**
   * Runs the agent's first step and stores the entry, whatever state it reached (or stores a
   * gated call or a user decision waiting, running nothing). A repeated call (the same call id in
   * the same run, see CallKey) returns the stored entry; concurrent repeats wait for the first.
   */
  start(input: StartInput): Promise<{ entry: EntryRow; duplicate: boolean }> {
    return this.starts.start(input);
  }

  /** Gives a waiting_for_input entry the user's answer (step phase `input`). */
  continue(input: ContinueInput): Promise<EntryRow> {
    return this.change(input.tenantId, { entryId: input.entryId }, entryNotFound, async (client, row) => {
      if (row.status !== 'waiting_for_input') return { row, reject: notWaitingFor('waiting_for_input', row) };
      return this.runner.step(
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
      const outcome = await this.decide(client, row, input);
      // The decider is kept once the decision is taken (a refused one leaves the entry as it was).
      if (outcome.reject || !input.decidedBy || outcome.row.status === 'waiting_for_approval') return outcome;
      return {
        ...outcome,
        row: await entryStore.update(client, outcome.row.entry_id, { decided_by: input.decidedBy }),
      };
    });
  }

  /** The decision on a locked waiting_for_approval entry (step phase `approval`), or why it is refused. */
  private async decide(client: pg.PoolClient, row: EntryRow, input: ResolveInput): Promise<Outcome> {
    if (row.status !== 'waiting_for_approval' || !row.approval)
      return { row, reject: notWaitingFor('waiting_for_approval', row) };
    const approval = row.approval;
    if (input.decision && !approval.options.includes(input.decision)) {
      return {
        row,
        reject: errors.invalidArgument(
          ErrorCodes.DECISION_NOT_OFFERED,
          `decision '${input.decision}' is not offered; the options are ${approval.options.join(', ')}`,
        ),
      };
    }
    if (input.changes && Object.keys(input.changes).length > 0 && !approval.allowModification) {
      return {
        row,
        reject: errors.invalidArgument(
          ErrorCodes.MODIFICATION_NOT_ALLOWED,
          'this approval request does not accept changes',
        ),
      };
    }
    if (row.kind === 'user_decision') {
      const decided = await entryStore.update(
        client,
        row.entry_id,
        decidedState(input.decision, input.changes, input.reply),
      );
      logEntry(this.options.logger, decided, 'user decided');
      return { row: decided };
    }
    if (row.kind === 'approval_gate') {
      // Nobody is there to read a reply: a gated call takes a decision.
      if (!input.decision)
        return {
          row,
          reject: errors.invalidArgument(
            ErrorCodes.DECISION_REQUIRED,
            'a tool call waiting for approval takes a decision: approve, edit or cancel',
          ),
        };
      return this.runner.decideGate(
        client,
        row,
        input.decision,
        input.changes,
        input.deadlineAt,
        input.credentialGrant,
      );
    }
    const step: AgentStepInput = {
      phase: 'approval',
      collected: row.collected,
      ...(input.decision ? { decision: input.decision } : {}),
      ...(input.changes ? { changes: input.changes } : {}),
      ...(input.reply !== undefined ? { reply: input.reply } : {}),
    };
    return this.runner.step(client, row, step, input.deadlineAt, input.credentialGrant);
  }

  async get(tenantId: string, entryId: string): Promise<EntryRow> {
    const row = await entryStore.get(this.options.db, tenantId, entryId);
    if (!row) throw entryNotFound();
    return row;
  }

  /** The entry holding an approval request, in any status. */
  async getByApproval(tenantId: string, approvalId: string): Promise<EntryRow> {
    const row = await entryStore.getByApproval(this.options.db, tenantId, approvalId);
    if (!row) throw approvalNotFound();
    return row;
  }

  /** Live entries not past their expiry, oldest first. */
  listPending(tenantId: string, conversationId: string | undefined): Promise<EntryRow[]> {
    return entryStore.listLive(this.options.db, tenantId, conversationId);
  }

  /** Parks a waiting entry until resumed (or until its paused expiry passes). Pausing a paused entry is a no-op. */
  pause(tenantId: string, entryId: string): Promise<EntryRow> {
    return this.change(tenantId, { entryId }, entryNotFound, async (client, row) => {
      if (row.status === 'paused') return { row };
      if (row.status !== 'waiting_for_input' && row.status !== 'waiting_for_approval')
        return { row, reject: notLive(row) };
      const paused = await entryStore.update(client, row.entry_id, {
        status: 'paused',
        paused_from: row.status,
        expires_in_ms: this.options.settings.pausedTtlMs,
      });
      logEntry(this.options.logger, paused, 'agent paused');
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
          : this.options.settings.inputTtlMs;
      const resumed = await entryStore.update(client, row.entry_id, {
        status: row.paused_from,
        paused_from: null,
        expires_in_ms: wait,
      });
      logEntry(this.options.logger, resumed, 'agent resumed');
      return { row: resumed };
    });
  }

  /** Cancels a live entry; its result is the cancellation message for the model. Cancelling twice is a no-op. */
  cancel(tenantId: string, entryId: string): Promise<EntryRow> {
    return this.change(tenantId, { entryId }, entryNotFound, async (client, row) => {
      if (row.status === 'cancelled') return { row };
      if (!isLive(row.status)) return { row, reject: notLive(row) };
      const cancelled = await entryStore.update(client, row.entry_id, CANCELLED);
      logEntry(this.options.logger, cancelled, 'agent cancelled');
      return { row: cancelled };
    });
  }

  /** Cancels the live entries of a conversation and deletes all of its entries (conversation-deletion.ts). */
  deleteConversation(tenantId: string, conversationId: string): Promise<{ cancelled: number; deleted: number }> {
    return deleteConversationEntries(this.options.db, this.options.logger, tenantId, conversationId);
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
    const outcome = await inTransaction(this.options.db, async (client) => {
      const locked: LockedRow | undefined = await entryStore.lock(client, tenantId, by);
      if (!locked) throw notFound();
      const { due, ...row } = locked;
      if (!due) return fn(client, row);
      const expiredRow = await entryStore.expire(client, row.entry_id);
      expired = true;
      logEntry(this.options.logger, expiredRow, 'agent expired');
      return fn(client, expiredRow);
    });
    if (expired) this.options.onExpired?.();
    if (outcome.reject) throw outcome.reject;
    return outcome.row;
  }
}
