import { randomUUID } from 'node:crypto';
import { inTransaction } from '@platform/service-kit';
import type pg from 'pg';

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
}

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
   * The open deletion of the conversation, else a new one. A completed deletion is returned
   * instead of a new job when the conversation has had no run since (deleting twice changes
   * nothing); a conversation used again after its deletion gets a new job.
   */
  async open(request: DeletionRequest): Promise<{ row: DeletionRow; created: boolean }> {
    const { tenantId, conversationId } = request;
    return inTransaction(this.pool, async (client) => {
      // Two requests for the same conversation take turns here (and the open index backs it up).
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `conversation-deletion\u001f${tenantId}\u001f${conversationId}`,
      ]);
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
        `INSERT INTO conversation_deletions (deletion_id, tenant_id, conversation_id, reason, actor)
         VALUES ($1, $2, $3, $4, $5) RETURNING *`,
        [`del_${randomUUID()}`, tenantId, conversationId, request.reason, request.actor.slice(0, 256)],
      );
      return { row: inserted.rows[0]!, created: true };
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
