import { randomUUID } from 'node:crypto';
import { USER_CANCELLED_MESSAGE, type AgentStepOutput } from '@platform/contracts';
import { errors, PlatformError } from '@platform/service-kit';
import type { CatalogEntry } from '@platform/tool-sdk';
import type { EntryKind, EntryPatch, EntryRow, EntryStatus, WaitingStatus } from './entry-store.js';
import { ErrorCodes } from './error-codes.js';

// What the pool's calls answer about entries: the errors of a call an entry cannot take, and the
// state columns an outcome writes.

export const SCHEMA_VERSION_CHANGED = 'SCHEMA_VERSION_CHANGED';

export function entryNotFound(): PlatformError {
  return errors.notFound(ErrorCodes.AGENT_NOT_FOUND, 'no such agent entry');
}

export function approvalNotFound(): PlatformError {
  return errors.notFound(ErrorCodes.APPROVAL_NOT_FOUND, 'no such approval request');
}

function precondition(code: string, message: string, row: EntryRow): PlatformError {
  return new PlatformError('failed_precondition', code, message, {
    details: { entryId: row.entry_id, status: row.status },
  });
}

/** Why an entry cannot take the step the caller asked for. */
export function notWaitingFor(wanted: WaitingStatus, row: EntryRow): PlatformError {
  if (row.status === 'paused')
    return precondition(ErrorCodes.AGENT_PAUSED, `the agent entry ${row.entry_id} is paused; resume it first`, row);
  if (row.status === 'waiting_for_approval') {
    return precondition(
      ErrorCodes.AGENT_AWAITING_APPROVAL,
      `the agent entry ${row.entry_id} waits for approval; answer approval ${row.approval_id} with ResolveApproval`,
      row,
    );
  }
  if (row.status === 'waiting_for_input')
    return precondition(
      ErrorCodes.AGENT_AWAITING_INPUT,
      `the agent entry ${row.entry_id} waits for input; answer it with ContinueAgent`,
      row,
    );
  return precondition(
    ErrorCodes.AGENT_NOT_WAITING,
    `the agent entry ${row.entry_id} is ${row.status} and takes no more ${wanted === 'waiting_for_input' ? 'input' : 'decisions'}`,
    row,
  );
}

export function notLive(row: EntryRow): PlatformError {
  return precondition(ErrorCodes.AGENT_NOT_LIVE, `the agent entry ${row.entry_id} is already ${row.status}`, row);
}

/** The state columns of an agent's answer. */
export function stateOf(
  output: AgentStepOutput,
  inputTtlMs: number,
): EntryPatch & { status: EntryStatus; schema_version: string } {
  const base = {
    schema_version: output.schemaVersion,
    collected: output.collected,
    paused_from: null,
    error_code: null,
    error_message: null,
  };
  switch (output.state) {
    case 'completed':
      return {
        ...base,
        status: 'completed',
        result: output.result ?? null,
        prompt: null,
        missing: null,
        expires_at: null,
      };
    case 'cancelled':
      return { ...base, status: 'cancelled', result: output.message, prompt: null, missing: null, expires_at: null };
    case 'waiting_for_input':
      return {
        ...base,
        status: 'waiting_for_input',
        prompt: output.prompt,
        missing: output.missing,
        approval_id: null,
        approval: null,
        expires_in_ms: inputTtlMs,
      };
    case 'waiting_for_approval':
      return {
        ...base,
        status: 'waiting_for_approval',
        prompt: output.prompt,
        missing: null,
        approval_id: randomUUID(),
        approval: output.approval,
        expires_in_ms: output.approval.timeoutMinutes * 60_000,
      };
  }
}

/**
 * The version an entry's saved state depends on: an agent's field schema version, or, for a
 * gated tool call, the tool's input schema hash (the arguments waiting for approval fit it).
 */
export function stateVersion(kind: EntryKind, entry: CatalogEntry): string | undefined {
  if (kind === 'approval_gate') return entry.kind === 'tool' ? entry.schemaHash : undefined;
  return entry.kind === 'agent' ? entry.agentSchemaVersion : undefined;
}

/** A live entry ended by the user's cancellation (nothing ran, or nothing more will). */
export const CANCELLED: EntryPatch & { status: EntryStatus } = {
  status: 'cancelled',
  paused_from: null,
  result: USER_CANCELLED_MESSAGE,
  prompt: null,
  missing: null,
  expires_at: null,
};
