import { randomUUID } from 'node:crypto';
import type { ApprovalDecision } from '@platform/contracts';
import { CANCELLED } from './entry-states.js';
import type { EntryPatch, EntryStatus } from './entry-store.js';

/** A decision the platform asks the user for itself (a committee with strategy `user`), not an agent's. */
export interface UserDecisionInput {
  actionSummary: string;
  details: Record<string, unknown>;
  prompt: string;
  expiresInMs: number;
}

/** What a user decision offers: an answer (an `edit` whose changes say which), or nothing. */
const DECISION_OPTIONS: ApprovalDecision[] = ['edit', 'cancel'];

/** The state a user decision waits in: an approval request that expires after `expiresInMs`. */
export function userDecisionState(
  agentName: string,
  input: UserDecisionInput,
): EntryPatch & { status: EntryStatus; schema_version: string } {
  return {
    status: 'waiting_for_approval',
    schema_version: '',
    collected: {},
    prompt: input.prompt,
    approval_id: randomUUID(),
    approval: {
      agentName,
      actionSummary: input.actionSummary,
      details: input.details,
      options: DECISION_OPTIONS,
      timeoutMinutes: Math.max(1, Math.ceil(input.expiresInMs / 60_000)),
      allowModification: true,
    },
    expires_in_ms: input.expiresInMs,
    step: 0,
  };
}

/**
 * The state a decided user decision ends in: `cancelled`, or `completed` with the decision as the
 * result (`{decision, changes, reply}`) for the caller that asked to apply. Nobody runs.
 */
export function decidedState(
  decision: ApprovalDecision | undefined,
  changes: Record<string, unknown> | undefined,
  reply: string | undefined,
): EntryPatch & { status: EntryStatus } {
  if (decision === 'cancel') return CANCELLED;
  return {
    status: 'completed',
    paused_from: null,
    result: { decision: decision ?? null, changes: changes ?? {}, reply: reply ?? null },
    prompt: null,
    missing: null,
    expires_at: null,
  };
}
