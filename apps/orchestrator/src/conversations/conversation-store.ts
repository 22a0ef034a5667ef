import type pg from 'pg';
import type { ConversationReader } from './conversation-access.js';
import type { ConversationPagePosition } from './conversation-page-token.js';

/** A conversation as stored (migrations/0015). */
export interface ConversationRecord {
  conversationId: string;
  title: string | null;
  labels: string[];
  metadata: Record<string, unknown>;
  owner: string;
  shared: boolean;
  agentId: string | null;
  agentName: string | null;
  waitingForUser: boolean;
  runCount: number;
  createdAt: Date;
  lastActivityAt: Date;
  updatedAt: Date | null;
  /** Where its runs' ends go when their message names no webhook (migrations/0024). */
  webhookUrl: string | null;
  /** The activity time in microseconds since the epoch (the listing's cursor). */
  activityMicros: string;
}

/** A listing's filters, checked (conversation-input.ts). */
export interface ConversationFilters {
  agent?: string;
  owner?: string;
  label?: string;
  /** A JSON object the metadata must contain. */
  metadataJson?: string;
  waitingForUser?: boolean;
  /** An ILIKE pattern for titles. */
  titlePattern?: string;
}

/** The fields an update writes; absent ones stay. */
export interface ConversationChanges {
  /** '' removes the title. */
  title?: string;
  labels?: string[];
  metadataJson?: string;
  shared?: boolean;
  /** Checked by the egress guard; '' clears it. */
  webhookUrl?: string;
}

interface ConversationRow {
  conversation_id: string;
  title: string | null;
  labels: string[];
  metadata: Record<string, unknown>;
  owner_subject: string;
  shared: boolean;
  agent_id: string | null;
  agent_name: string | null;
  waiting_for_user: boolean;
  run_count: string;
  created_at: Date;
  last_activity_at: Date;
  updated_at: Date | null;
  webhook_url: string | null;
  activity_micros: string;
}

const COLUMNS = `conversation_id, title, labels, metadata, owner_subject, shared, agent_id, agent_name, waiting_for_user,
  run_count, created_at, last_activity_at, updated_at, webhook_url,
  (extract(epoch FROM last_activity_at) * 1000000)::bigint::text AS activity_micros`;

/**
 * Whether the reader ($1 tenant, $2 sees all, $3 subject) reaches a row: theirs, shared, or one no
 * user started (a trigger task's, or one from before owners were recorded), which is everyone's.
 */
const REACHES = `tenant_id = $1 AND ($2 OR owner_subject = $3 OR shared OR owner_subject = '')`;

function recordOf(row: ConversationRow): ConversationRecord {
  return {
    conversationId: row.conversation_id,
    title: row.title,
    labels: row.labels,
    metadata: row.metadata,
    owner: row.owner_subject,
    shared: row.shared,
    agentId: row.agent_id,
    agentName: row.agent_name,
    waitingForUser: row.waiting_for_user,
    runCount: Number(row.run_count),
    createdAt: row.created_at,
    lastActivityAt: row.last_activity_at,
    updatedAt: row.updated_at,
    webhookUrl: row.webhook_url,
    activityMicros: row.activity_micros,
  };
}

/**
 * The conversations table: listing, reading and the client's writes. Rows are created and their
 * activity kept by the statements that record and finish runs (journal/run-records.ts).
 */
export class ConversationStore {
  constructor(private readonly pool: pg.Pool) {}

  /** A page of what the reader reaches, most recent activity first, after `after`. */
  async list(
    reader: ConversationReader,
    filters: ConversationFilters,
    limit: number,
    after: ConversationPagePosition | undefined,
  ): Promise<ConversationRecord[]> {
    const { rows } = await this.pool.query<ConversationRow>({
      name: 'conversations-list',
      text: `SELECT ${COLUMNS} FROM conversations
        WHERE ${REACHES}
          AND ($4::text IS NULL OR agent_id = $4 OR agent_name = $4)
          AND ($5::text IS NULL OR owner_subject = $5)
          AND ($6::text IS NULL OR labels @> ARRAY[$6::text])
          AND ($7::jsonb IS NULL OR metadata @> $7::jsonb)
          AND ($8::boolean IS NULL OR waiting_for_user = $8)
          AND ($9::text IS NULL OR title ILIKE $9)
          AND ($10::bigint IS NULL
            OR (last_activity_at, conversation_id) < (timestamptz 'epoch' + $10::bigint * interval '1 microsecond', $11::text))
        ORDER BY last_activity_at DESC, conversation_id DESC
        LIMIT $12`,
      values: [
        reader.tenantId,
        reader.seesAll,
        reader.subject,
        filters.agent ?? null,
        filters.owner ?? null,
        filters.label ?? null,
        filters.metadataJson ?? null,
        filters.waitingForUser ?? null,
        filters.titlePattern ?? null,
        after?.activityMicros ?? null,
        after?.conversationId ?? null,
        limit,
      ],
    });
    return rows.map(recordOf);
  }

  /** The conversation, when the reader reaches it. */
  async get(reader: ConversationReader, conversationId: string): Promise<ConversationRecord | undefined> {
    const { rows } = await this.pool.query<ConversationRow>({
      name: 'conversations-get',
      text: `SELECT ${COLUMNS} FROM conversations WHERE ${REACHES} AND conversation_id = $4`,
      values: [reader.tenantId, reader.seesAll, reader.subject, conversationId],
    });
    return rows[0] ? recordOf(rows[0]) : undefined;
  }

  /** Whether the reader may read the conversation's history: it reaches it, or there is no such conversation. */
  async allows(reader: ConversationReader, conversationId: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ allowed: boolean }>({
      name: 'conversations-allows',
      text: `SELECT NOT EXISTS (SELECT 1 FROM conversations WHERE tenant_id = $1 AND conversation_id = $4
          AND NOT ($2 OR owner_subject = $3 OR shared OR owner_subject = '')) AS allowed`,
      values: [reader.tenantId, reader.seesAll, reader.subject, conversationId],
    });
    return rows[0]?.allowed ?? false;
  }

  /**
   * Writes the changes to a conversation the reader reaches; a change of `shared` only by its
   * owner or an admin. `refused` says the conversation is reached but its sharing may not be changed.
   */
  async update(
    reader: ConversationReader,
    conversationId: string,
    changes: ConversationChanges,
  ): Promise<{ record: ConversationRecord } | { refused: 'not_found' | 'share_forbidden' }> {
    const { rows } = await this.pool.query<ConversationRow>({
      name: 'conversations-update',
      text: `UPDATE conversations SET
          title = CASE WHEN $5::text IS NULL THEN title ELSE nullif($5::text, '') END,
          labels = coalesce($6::text[], labels),
          metadata = coalesce($7::jsonb, metadata),
          shared = coalesce($8::boolean, shared),
          webhook_url = CASE WHEN $10::text IS NULL THEN webhook_url ELSE nullif($10::text, '') END,
          updated_at = now()
        WHERE ${REACHES} AND conversation_id = $4
          AND ($8::boolean IS NULL OR $9 OR owner_subject = $3)
        RETURNING ${COLUMNS}`,
      values: [
        reader.tenantId,
        reader.seesAll,
        reader.subject,
        conversationId,
        changes.title ?? null,
        changes.labels ?? null,
        changes.metadataJson ?? null,
        changes.shared ?? null,
        reader.isAdmin,
        changes.webhookUrl ?? null,
      ],
    });
    if (rows[0]) return { record: recordOf(rows[0]) };
    const reached = await this.get(reader, conversationId);
    return { refused: reached ? 'share_forbidden' : 'not_found' };
  }
}
