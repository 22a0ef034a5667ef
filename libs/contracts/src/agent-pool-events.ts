import { ConversationId, RunId, TenantId, ToolCallId, ToolName } from './ids.js';
import { z } from 'zod';
import { keyToken } from './key-encoding.js';

/**
 * Events the agent pool publishes to JetStream (the orchestrator consumes them).
 *
 * Subjects: `platform.agent-pool.events.<tenant token>.<event>`, where the tenant token is
 * `keyToken(tenantId)` (key-encoding.ts: for valid tenant ids, every "." written as "%2E").
 */
export const AGENT_POOL_EVENT_SUBJECT_PREFIX = 'platform.agent-pool.events';
export const AGENT_POOL_EVENTS_STREAM = 'AGENT_POOL_EVENTS';

/** The subject of an event of one tenant; `'*'` as the event matches all of that tenant's events. */
export function agentPoolEventSubject(tenantId: string, event: 'expired' | '*'): string {
  return `${AGENT_POOL_EVENT_SUBJECT_PREFIX}.${keyToken(tenantId)}.${event}`;
}

/** Why an entry expired: which wait ran out. */
export const AgentExpiryReason = z.enum(['input_timeout', 'approval_timeout', 'paused_timeout']);
export type AgentExpiryReason = z.infer<typeof AgentExpiryReason>;

/**
 * A waiting agent-tool expired: the user did not answer in time, so the action was not taken.
 * The waiting run's tool call should get a tool result saying so. `eventId` is also the JetStream
 * message id (`Nats-Msg-Id`), so a republished event is dropped by the stream's duplicate window.
 */
export const AgentExpiredEvent = z.object({
  type: z.literal('agent.expired'),
  eventId: z.string().min(1),
  entryId: z.string().min(1),
  tenantId: TenantId,
  conversationId: ConversationId,
  /** Absent when the entry was started without a run id. */
  runId: RunId.optional(),
  /** The model's tool call id that started the agent. */
  callId: ToolCallId,
  agentName: ToolName,
  reason: AgentExpiryReason,
  /** Human-readable, suitable as the tool result's text. */
  message: z.string(),
  /** ISO 8601 time the entry expired. */
  expiredAt: z.iso.datetime({ offset: true }),
});
export type AgentExpiredEvent = z.infer<typeof AgentExpiredEvent>;
