import { randomUUID } from 'node:crypto';
import { inTransaction } from '@platform/service-kit';
import type pg from 'pg';
import type { ConversationReader } from '../conversations/conversation-access.js';

type DeletionReason = 'request' | 'end_user_erasure' | 'retention';
type DeletionStatus = 'pending' | 'running' | 'completed';

/** One row of `conversation_deletions` (migrations/0017). */
export interface DeletionRow {
  deletion_id: string;
  tenant_id: string;
  conversation_id: string;
  reason: DeletionReason;
  actor: string;
  status: DeletionStatus;
  step: string;
  counts: Record<string, number>;
  attempts: number;
  last_error: string;
  lease_owner: string | null;
  lease_until: Date | null;
  created_at: Date;
  completed_at: Date | null;
  /** The conversation's owner when the job was recorded (migration 0021); null: it had no row. */
  owner_subject: string | null;
}

/** A deletion the caller may not ask for: one they cannot reach, or another user's shared one. */
export type DeletionRefusal = 'not_found' | 'not_the_owner';

type Opened = { row: DeletionRow; created: boolean };

export interface DeletionRequest {
  tenantId: string;
  conversationId: string;
  reason: DeletionReason;
  actor: string;
}

/**
 * The deletion jobs in Postgres. Every read by a caller's id is scoped by tenant; the workers'
 * claims are not (a worker serves every tenant) and skip rows another worker holds.
 */
export class DeletionStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * The open deletion of the conversation, else a new one, for a platform caller (the retention
   * sweep, an admin's erasure of an end user): every conversation of the tenant.
   */
  async open(request: DeletionRequest): Promise<Opened> {
    return inTransaction(this.pool, async (client) => {
      await lockConversation(client, request);
      return openLocked(client, request);
    });
  }

  /**
   * As `open`, for a caller who deletes only what they own unless they see every conversation
   * (docs/conversations.md#who-may-delete): theirs, or one no user started. The owner is the
   * conversation's row, or once it is deleted the owner its last job recorded, so the owner deleting
   * again gets the same job back.
   */
  async openAs(
    requester: ConversationReader,
    request: DeletionRequest,
  ): Promise<Opened | { refused: DeletionRefusal }> {
    return inTransaction(this.pool, async (client) => {
      await lockConversation(client, request);
      if (!requester.seesAll) {
        const refused = await refusalOf(client, requester, request.conversationId);
        if (refused) return { refused };
      }
      return openLocked(client, request);
    });
  }

  async get(tenantId: string, deletionId: string): Promise<DeletionRow | undefined> {
    const { rows } = await this.pool.query<DeletionRow>(
      'SELECT * FROM conversation_deletions WHERE tenant_id = $1 AND deletion_id = $2',
      [tenantId, deletionId],
    );
    return rows[0];
  }

  /** Whether the conversation is being deleted (a new message for it is refused meanwhile). */
  async isDeleting(tenantId: string, conversationId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `SELECT 1 FROM conversation_deletions WHERE tenant_id = $1 AND conversation_id = $2 AND status <> 'completed'`,
      [tenantId, conversationId],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Takes the oldest open job whose lease is free or ran out, for `leaseMs`. */
  async claim(owner: string, leaseMs: number): Promise<DeletionRow | undefined> {
    const { rows } = await this.pool.query<DeletionRow>(
      `UPDATE conversation_deletions SET status = 'running', lease_owner = $1,
         lease_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1
       WHERE deletion_id = (
         SELECT deletion_id FROM conversation_deletions
         WHERE status <> 'completed' AND (lease_until IS NULL OR lease_until < now())
         ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)
       RETURNING *`,
      [owner, leaseMs],
    );
    return rows[0];
  }

  /** Records a finished step and extends the lease; false when the lease was lost (another worker took over). */
  async stepDone(
    job: DeletionRow,
    owner: string,
    step: string,
    counts: Record<string, number>,
    leaseMs: number,
  ): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE conversation_deletions SET step = $3, counts = counts || $4::jsonb,
         lease_until = now() + $5 * interval '1 millisecond'
       WHERE deletion_id = $1 AND lease_owner = $2 AND status = 'running'`,
      [job.deletion_id, owner, step, JSON.stringify(counts), leaseMs],
    );
    return (rowCount ?? 0) > 0;
  }

  async complete(job: DeletionRow, owner: string): Promise<void> {
    await this.pool.query(
      `UPDATE conversation_deletions SET status = 'completed', completed_at = now(), lease_owner = NULL,
         lease_until = NULL, last_error = ''
       WHERE deletion_id = $1 AND lease_owner = $2`,
      [job.deletion_id, owner],
    );
  }

  /** A step failed: the job goes back to pending, to be tried again after `retryMs` by any worker. */
  async failed(job: DeletionRow, owner: string, error: string, retryMs: number): Promise<void> {
    await this.pool.query(
      `UPDATE conversation_deletions SET status = 'pending', last_error = $3, lease_owner = NULL,
         lease_until = now() + $4 * interval '1 millisecond'
       WHERE deletion_id = $1 AND lease_owner = $2`,
      [job.deletion_id, owner, error.slice(0, 1000), retryMs],
    );
  }
}

/** Two requests for the same conversation take turns (and the open index backs it up). */
async function lockConversation(client: pg.PoolClient, { tenantId, conversationId }: DeletionRequest): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `conversation-deletion\u001f${tenantId}\u001f${conversationId}`,
  ]);
}

/**
 * The open deletion of the conversation, else a new one. A completed deletion is returned instead
 * of a new job when the conversation has had no run since (deleting twice changes nothing); a
 * conversation used again after its deletion gets a new job.
 */
async function openLocked(client: pg.PoolClient, request: DeletionRequest): Promise<Opened> {
  const { tenantId, conversationId } = request;
  const latest = await client.query<DeletionRow & { used_since: boolean }>(
    `SELECT d.*, EXISTS (SELECT 1 FROM runs r WHERE r.tenant_id = d.tenant_id AND r.conversation_id = d.conversation_id
                         AND r.created_at >= d.created_at) AS used_since
     FROM conversation_deletions d WHERE d.tenant_id = $1 AND d.conversation_id = $2
     ORDER BY (d.status <> 'completed') DESC, d.created_at DESC LIMIT 1`,
    [tenantId, conversationId],
  );
  const found = latest.rows[0];
  if (found && (found.status !== 'completed' || !found.used_since)) {
    const { used_since: _used, ...row } = found;
    return { row, created: false };
  }
  const inserted = await client.query<DeletionRow>(
    `INSERT INTO conversation_deletions (deletion_id, tenant_id, conversation_id, reason, actor, owner_subject)
     VALUES ($1, $2, $3, $4, $5,
       (SELECT owner_subject FROM conversations WHERE tenant_id = $2 AND conversation_id = $3))
     RETURNING *`,
    [`del_${randomUUID()}`, tenantId, conversationId, request.reason, request.actor.slice(0, 256)],
  );
  return { row: inserted.rows[0]!, created: true };
}

/**
 * Why the requester may not delete the conversation, if they may not: its owner is another user
 * and it is shared (they see it, so they are told), or it is another user's they cannot reach (as
 * if it did not exist). A conversation that never had a row has no owner: anyone may ask (the job
 * removes what there is, nothing).
 */
async function refusalOf(
  client: pg.PoolClient,
  requester: ConversationReader,
  conversationId: string,
): Promise<DeletionRefusal | undefined> {
  const { rows } = await client.query<{ owner: string | null; shared: boolean | null }>(
    `SELECT coalesce(c.owner_subject,
              (SELECT d.owner_subject FROM conversation_deletions d WHERE d.tenant_id = $1 AND d.conversation_id = $2
               ORDER BY d.created_at DESC LIMIT 1)) AS owner,
            c.shared
     FROM (SELECT 1) one
     LEFT JOIN conversations c ON c.tenant_id = $1 AND c.conversation_id = $2`,
    [requester.tenantId, conversationId],
  );
  const { owner, shared } = rows[0] ?? { owner: null, shared: null };
  if (owner === null || owner === '' || owner === requester.subject) return undefined;
  return shared ? 'not_the_owner' : 'not_found';
}
