import { errors, inTransaction } from '@platform/service-kit';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { decodePageToken, encodePageToken } from './page-token.js';
import type { FireRow, TaskRow } from './task-row.js';

/** A fire claimed by this replica, with its task. */
export interface ClaimedFire {
  fire: FireRow;
  task: TaskRow;
}

/** How a claimed fire ends (or goes back to wait). */
export type FireSettlement =
  | { status: 'succeeded' | 'waiting_approval' | 'failed' | 'skipped'; runId: string; result: unknown; errorCode: string; errorMessage: string }
  | { status: 'retry'; dueAtMs: number; countAttempt: boolean; runId: string; errorCode: string; errorMessage: string };

/**
 * Postgres access for fires. Claims use `FOR UPDATE SKIP LOCKED` over pending fires (and running
 * fires whose lease ran out), so replicas claim disjoint fires without blocking each other; every
 * later write is fenced by (lease owner, attempt), so a replica that lost its lease can no longer
 * change the fire.
 */
export class FireStore {
  constructor(
    private readonly db: pg.Pool,
    private readonly replicaId: string,
  ) {}

  async claim(limit: number, nowMs: number, leaseMs: number): Promise<ClaimedFire[]> {
    const now = new Date(nowMs);
    const { rows: fires } = await this.db.query<FireRow>(
      `WITH claimable AS (
         SELECT fire_id FROM fires
         WHERE (status = 'pending' AND due_at <= $1) OR (status = 'running' AND lease_expires_at <= $1)
         ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE fires f SET status = 'running', attempts = f.attempts + 1, lease_owner = $3, lease_expires_at = $4,
         started_at = coalesce(f.started_at, $1)
       FROM claimable WHERE f.fire_id = claimable.fire_id RETURNING f.*`,
      [now, limit, this.replicaId, new Date(nowMs + leaseMs)],
    );
    if (fires.length === 0) return [];
    const { rows: tasks } = await this.db.query<TaskRow>('SELECT * FROM tasks WHERE task_id = ANY($1::text[])', [fires.map((f) => f.task_id)]);
    const byId = new Map(tasks.map((t) => [t.task_id, t]));
    return fires.flatMap((fire) => {
      const task = byId.get(fire.task_id);
      return task ? [{ fire, task }] : [];
    });
  }

  /** Extends the leases of fires this replica is still executing. */
  async renewLeases(fireIds: string[], nowMs: number, leaseMs: number): Promise<void> {
    if (fireIds.length === 0) return;
    await this.db.query(`UPDATE fires SET lease_expires_at = $3 WHERE fire_id = ANY($1::text[]) AND lease_owner = $2 AND status = 'running'`, [
      fireIds,
      this.replicaId,
      new Date(nowMs + leaseMs),
    ]);
  }

  /**
   * Records how a claimed attempt ended, if this replica still holds the fire at that attempt, and
   * moves the task's last fire, outcome and status along. Returns false when the lease was lost.
   */
  async settle(claimed: FireRow, settlement: FireSettlement, nowMs: number): Promise<boolean> {
    const now = new Date(nowMs);
    return inTransaction(this.db, async (client) => {
      const fenced = [claimed.fire_id, this.replicaId, claimed.attempts];
      if (settlement.status === 'retry') {
        const { rowCount } = await client.query(
          `UPDATE fires SET status = 'pending', due_at = $4, attempts = attempts - $5, lease_owner = NULL, lease_expires_at = NULL,
             run_id = $6, error_code = $7, error_message = $8
           WHERE fire_id = $1 AND lease_owner = $2 AND attempts = $3 AND status = 'running'`,
          [...fenced, new Date(settlement.dueAtMs), settlement.countAttempt ? 0 : 1, settlement.runId, settlement.errorCode, settlement.errorMessage],
        );
        return rowCount === 1;
      }
      const { rowCount } = await client.query(
        `UPDATE fires SET status = $4, run_id = $5, result = $6::jsonb, error_code = $7, error_message = $8, finished_at = $9,
           lease_owner = NULL, lease_expires_at = NULL
         WHERE fire_id = $1 AND lease_owner = $2 AND attempts = $3 AND status = 'running'`,
        [...fenced, settlement.status, settlement.runId, JSON.stringify(settlement.result ?? null), settlement.errorCode, settlement.errorMessage, now],
      );
      if (rowCount !== 1) return false;
      await client.query(
        `UPDATE tasks SET last_fire_at = $2, last_outcome = $3::text, updated_at = now(),
           status = CASE
             WHEN $3::text = 'waiting_approval' AND status = 'ACTIVE' THEN 'PENDING_APPROVAL'
             WHEN status = 'ACTIVE' AND next_fire_at IS NULL AND trigger_type = 'schedule'
               AND NOT EXISTS (SELECT 1 FROM fires WHERE task_id = $1 AND status IN ('pending', 'running')) THEN 'COMPLETED'
             ELSE status END
         WHERE task_id = $1`,
        [claimed.task_id, claimed.scheduled_at, settlement.status],
      );
      return true;
    });
  }

  /** Records a run-now fire (idempotent per request id); it is claimable at once. */
  async runNow(task: TaskRow, requestId: string, nowMs: number): Promise<{ fire: FireRow; duplicate: boolean }> {
    const key = `manual:${requestId || randomUUID()}`;
    const now = new Date(nowMs);
    const { rows } = await this.db.query<FireRow>(
      `INSERT INTO fires (fire_id, task_id, tenant_id, fire_key, kind, scheduled_at, due_at, status)
       VALUES ($1, $2, $3, $4, 'manual', $5, $5, 'pending') ON CONFLICT (task_id, fire_key) DO NOTHING RETURNING *`,
      [`fire_${randomUUID()}`, task.task_id, task.tenant_id, key, now],
    );
    if (rows[0]) return { fire: rows[0], duplicate: false };
    const { rows: existing } = await this.db.query<FireRow>('SELECT * FROM fires WHERE task_id = $1 AND fire_key = $2', [task.task_id, key]);
    return { fire: existing[0]!, duplicate: true };
  }

  async list(tenantId: string, taskId: string, pageSize: number, pageToken: string): Promise<{ fires: FireRow[]; nextPageToken: string }> {
    const after = decodePageToken(pageToken);
    const { rows } = await this.db.query<FireRow>(
      `SELECT * FROM fires WHERE tenant_id = $1 AND task_id = $2 AND ($3::timestamptz IS NULL OR (scheduled_at, fire_id) < ($3, $4))
       ORDER BY scheduled_at DESC, fire_id DESC LIMIT $5`,
      [tenantId, taskId, after?.at ?? null, after?.id ?? '', pageSize + 1],
    );
    const page = rows.slice(0, pageSize);
    const last = page[page.length - 1];
    return { fires: page, nextPageToken: rows.length > pageSize && last ? encodePageToken({ at: last.scheduled_at, id: last.fire_id }) : '' };
  }

  async get(tenantId: string, fireId: string): Promise<FireRow> {
    const { rows } = await this.db.query<FireRow>('SELECT * FROM fires WHERE tenant_id = $1 AND fire_id = $2', [tenantId, fireId]);
    if (!rows[0]) throw errors.notFound('FIRE_NOT_FOUND', `no fire '${fireId}'`);
    return rows[0];
  }
}
