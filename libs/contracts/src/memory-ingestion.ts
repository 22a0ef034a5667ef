import { z } from 'zod';
import { ChatMessage } from './chat-message.js';
import { compositeKey, keyToken } from './key-encoding.js';
import { ConversationId, RunId, TenantId } from './ids.js';

/**
 * Long-term memory ingestion: when a turn has finished (its messages are in the conversation's
 * history), the orchestrator publishes one `TurnFinished` message to a JetStream work-queue
 * stream; the memory service consumes it durably (one replica per message), extracts knowledge
 * and acknowledges it only after its transaction commits. A message that keeps failing goes to
 * the dead-letter stream as a `MemoryDeadLetter` with its reason.
 *
 * Subjects: `platform.memory.ingest.<tenant token>.turn` and `platform.memory.dead.<tenant token>.turn`
 * (tenant token as in `keyToken`, key-encoding.ts: for valid ids, "." written as "%2E").
 */
export const MEMORY_INGEST_STREAM = 'MEMORY_INGEST';
export const MEMORY_INGEST_SUBJECT_PREFIX = 'platform.memory.ingest';
export const MEMORY_DEAD_LETTER_STREAM = 'MEMORY_INGEST_DEAD';
export const MEMORY_DEAD_LETTER_SUBJECT_PREFIX = 'platform.memory.dead';

/** The subject a tenant's finished turns are published on. */
export function memoryIngestSubject(tenantId: string): string {
  return `${MEMORY_INGEST_SUBJECT_PREFIX}.${keyToken(tenantId)}.turn`;
}

/** The subject a tenant's dead-lettered turns are kept on. */
export function memoryDeadLetterSubject(tenantId: string): string {
  return `${MEMORY_DEAD_LETTER_SUBJECT_PREFIX}.${keyToken(tenantId)}.turn`;
}

/**
 * The JetStream message id (`Nats-Msg-Id`) of a turn's ingestion message: a republished turn
 * (a resumed run) is dropped by the stream's duplicate window, and the consumer dedupes on
 * (tenant, run) beyond it. Encoded with `compositeKey`, so two tenants' turns never share an id
 * (`turn:<tenant>:<run>` did: tenant `a:b` run `c` and tenant `a` run `b:c` were one message).
 */
export function memoryIngestMessageId(tenantId: string, runId: string): string {
  return `turn.${compositeKey(tenantId, runId)}`;
}

/**
 * A hierarchical collection name: ":"-separated segments, e.g. `user:alice`, `team:eng:alice`.
 * A prefix query for `team:eng` covers `team:eng` and `team:eng:*`, never `team:engineering`.
 */
export const COLLECTION_PATTERN = /^[A-Za-z0-9_.@-]{1,64}(:[A-Za-z0-9_.@-]{1,64}){0,7}$/;
export const CollectionName = z
  .string()
  .regex(COLLECTION_PATTERN, 'must be 1-8 ":"-separated segments of 1-64 letters, digits, "_", ".", "@" or "-"');
export type CollectionName = z.infer<typeof CollectionName>;

/** True when `collection` is `prefix` or lies below it (an empty prefix covers every collection). */
export function collectionMatchesPrefix(collection: string, prefix: string): boolean {
  return prefix === '' || collection === prefix || collection.startsWith(`${prefix}:`);
}

/** One message of the finished turn with its seq in the conversation's history. */
export const IngestedMessage = z.object({
  seq: z.number().int().positive(),
  message: ChatMessage,
});
export type IngestedMessage = z.infer<typeof IngestedMessage>;

/** A finished turn, to be turned into long-term knowledge (published by the orchestrator's post-process). */
export const TurnFinished = z.object({
  type: z.literal('memory.turn_finished'),
  tenantId: TenantId,
  conversationId: ConversationId,
  runId: RunId,
  /** The collection the turn's knowledge belongs to; absent = the memory service's default collection. */
  collection: CollectionName.optional(),
  /** The agent profile that ran the turn (for operators; extraction does not depend on it). */
  profile: z.string().max(128).optional(),
  /** The tier of the run's caller: its facts quota holds what the turn's extraction may add (absent: the default tier). */
  tier: z.string().max(64).optional(),
  /** The turn's messages are the conversation's seqs firstSeq..lastSeq. */
  firstSeq: z.number().int().positive(),
  lastSeq: z.number().int().positive(),
  /**
   * The turn's messages with their seqs. Absent when the turn was too large to publish whole; the
   * memory service then reads firstSeq..lastSeq from the history it holds.
   */
  messages: z.array(IngestedMessage).optional(),
  /** ISO 8601 time the turn finished. */
  finishedAt: z.iso.datetime({ offset: true }),
});
export type TurnFinished = z.infer<typeof TurnFinished>;

/** Why a turn could not be ingested, kept on the dead-letter stream with the original message. */
export const MemoryDeadLetterReason = z.enum([
  'malformed_message',
  'invalid_extraction',
  'extraction_failed',
  'storage_failed',
  'too_many_deliveries',
]);
export type MemoryDeadLetterReason = z.infer<typeof MemoryDeadLetterReason>;

export const MemoryDeadLetter = z.object({
  type: z.literal('memory.dead_letter'),
  /** Absent when the original message was too malformed to name its tenant. */
  tenantId: TenantId.optional(),
  runId: RunId.optional(),
  reason: MemoryDeadLetterReason,
  /** Human-readable detail (the last error). */
  detail: z.string(),
  deliveries: z.number().int().nonnegative(),
  /** The subject and body (UTF-8 text) of the original message, as received. */
  originalSubject: z.string(),
  originalBody: z.string(),
  /** ISO 8601 time the message was dead-lettered. */
  deadAt: z.iso.datetime({ offset: true }),
});
export type MemoryDeadLetter = z.infer<typeof MemoryDeadLetter>;
