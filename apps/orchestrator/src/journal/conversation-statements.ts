import type { NewRun } from './run-types.js';

// The SQL the statements that record a message's run share with the conversations table
// (migrations/0015): the conversation is created or touched in the same statement as its run.

/** Parameter numbers of the CTEs' inputs in the statement they join. */
export interface ConversationParams {
  tenantId: string;
  conversationId: string;
  agentId: string;
  /** The first of the four values {@link conversationValues} gives, in order. */
  first: number;
}

/**
 * The CTEs `conv` and `gate`: the message's conversation is created (owned by its sender) or has
 * its activity, run count and agent brought up to date, but only when the sender reaches it (its
 * owner, a shared conversation, one no user started, or a sender who sees all). `gate.open` is false when it does not:
 * the run must then not be recorded. A run with no conversation entry (a child run, a notice)
 * touches nothing and is always open.
 */
export function conversationCtes(p: ConversationParams): string {
  const sender = `$${p.first}::text`;
  const agentName = `$${p.first + 1}::text`;
  const seesAll = `$${p.first + 2}::boolean`;
  const applies = `$${p.first + 3}::boolean`;
  return `conv AS (
         INSERT INTO conversations AS c (tenant_id, conversation_id, owner_subject, agent_id, agent_name, run_count, created_at, last_activity_at)
         SELECT ${p.tenantId}, ${p.conversationId}, ${sender}, ${p.agentId}, ${agentName}, 1, clock_timestamp(), clock_timestamp() WHERE ${applies}
         ON CONFLICT (tenant_id, conversation_id) DO UPDATE SET run_count = c.run_count + 1,
           last_activity_at = greatest(c.last_activity_at, EXCLUDED.last_activity_at),
           agent_id = EXCLUDED.agent_id, agent_name = EXCLUDED.agent_name, waiting_for_user = false
           WHERE c.owner_subject = EXCLUDED.owner_subject OR c.shared OR c.owner_subject = '' OR ${seesAll}
         RETURNING 1),
       gate AS (SELECT NOT ${applies} OR EXISTS (SELECT 1 FROM conv) AS open)`;
}

/** The sender, agent name, whether the sender sees all, and whether a conversation applies at all. */
export function conversationValues(run: NewRun): unknown[] {
  const entry = run.conversation;
  return [entry?.sender ?? '', entry?.agentName ?? null, entry?.seesAll ?? true, entry !== undefined];
}

/**
 * The CTE `conv_end`: a finished run (the CTE `finished`, with its status as `status_param`) says
 * whether its conversation now waits for the user, and counts as its latest activity.
 */
export function conversationEndCte(statusParam: string): string {
  return `conv_end AS (
         UPDATE conversations SET waiting_for_user = (${statusParam} = 'waiting'),
           last_activity_at = greatest(conversations.last_activity_at, finished.finished_at)
         FROM finished
         WHERE conversations.tenant_id = finished.tenant_id AND conversations.conversation_id = finished.conversation_id)`;
}
