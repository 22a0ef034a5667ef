import { errors, inTransaction } from '@platform/service-kit';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { decodePageToken, encodePageToken } from './page-token.js';
import { recordFireNotifications } from './notifications/notification-outbox.js';
import type { FireRow, TaskRow } from './task-row.js';
import { ErrorCodes } from './error-codes.js';

/** A fire claimed by this replica, with what its execution needs of its task. */
export interface ClaimedFire {
  fire: FireRow;
  task: Pick<TaskRow, 'task_id' | 'tenant_id' | 'user_id' | 'spec'>;
}

/** How a claimed fire ends (or goes back to wait). */
export type FireSettlement =
  | {
      status: 'succeeded' | 'waiting_approval' | 'failed' | 'skipped';
      runId: string;
      result: unknown;
      errorCode: string;
      errorMessage: string;
    }
  | { status: 'retry'; dueAtMs: number; countAttempt: boolean; runId: string; errorCode: string; errorMessage: string };

function claimedFire({
  task_user_id,
  task_spec,
  ...fire
}: FireRow & { task_user_id: string; task_spec: TaskRow['spec'] }): ClaimedFire {
  return { fire, task: { task_id: fire.task_id, tenant_id: fire.tenant_id, user_id: task_user_id, spec: task_spec } };
}

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

  /**
   * Claims up to `limit` due fires in one statement (one round trip, one commit): the claimable
   * rows are locked with `SKIP LOCKED`, moved to `running` under this replica's lease, and returned
   * with what the execution needs of their tasks.
   */
  async claim(limit: number, nowMs: number, leaseMs: number): Promise<ClaimedFire[]> {
    const now = new Date(nowMs);
    const { rows } = await this.db.query<FireRow & { task_user_id: string; task_spec: TaskRow['spec'] }>({
      name: 'fires-claim',
      // Two scans, each an ordered walk of its partial index that stops at the limit (one OR-ed
      // condition would read and sort every due row at each claim): fires whose lease ran out first.
      text: `WITH expired AS (
         SELECT fire_id FROM fires WHERE status = 'running' AND lease_expires_at <= $1
         ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED),
       due AS (
         SELECT fire_id FROM fires WHERE status = 'pending' AND due_at <= $1
         ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED),
       claimable AS (SELECT fire_id FROM expired UNION ALL SELECT fire_id FROM due LIMIT $2),
       claimed AS (
         UPDATE fires f SET status = 'running', attempts = f.attempts + 1, lease_owner = $3, lease_expires_at = $4,
           started_at = coalesce(f.started_at, $1)
         FROM claimable WHERE f.fire_id = claimable.fire_id RETURNING f.*)
       SELECT claimed.*, t.user_id AS task_user_id, t.spec AS task_spec FROM claimed JOIN tasks t ON t.task_id = claimed.task_id`,
      values: [now, limit, this.replicaId, new Date(nowMs + leaseMs)],
    });
    return rows.map(claimedFire);
  }

  /**
   * Claims ahead up to `limit` fires due after `nowMs` and by `untilMs`, in one statement: like a
   * claim (`SKIP LOCKED`, `running`, an attempt counted, this replica's lease) but not started
   * (`started_at` stays null, so a pause or an edit of the task still cancels them), and with a
   * lease that runs until the fire's time plus `leaseMs`: if this replica dies before then, the
   * fire is claimed again by another replica when the lease runs out.
   */
  async claimAhead(limit: number, nowMs: number, untilMs: number, leaseMs: number): Promise<ClaimedFire[]> {
    const { rows } = await this.db.query<FireRow & { task_user_id: string; task_spec: TaskRow['spec'] }>({
      name: 'fires-claim-ahead',
      text: `WITH upcoming AS (
         SELECT fire_id FROM fires WHERE status = 'pending' AND due_at > $1 AND due_at <= $2
         ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE fires f SET status = 'running', attempts = f.attempts + 1, lease_owner = $4,
           lease_expires_at = f.due_at + make_interval(secs => $5::double precision / 1000)
         FROM upcoming WHERE f.fire_id = upcoming.fire_id RETURNING f.*)
       SELECT claimed.*, t.user_id AS task_user_id, t.spec AS task_spec FROM claimed JOIN tasks t ON t.task_id = claimed.task_id`,
      values: [new Date(nowMs), new Date(untilMs), limit, this.replicaId, leaseMs],
    });
    return rows.map(claimedFire);
  }

  /**
   * Marks fires claimed ahead as started, now that their time has come, and returns those this
   * replica still holds unstarted at that attempt: a fire whose task was paused, edited or deleted
   * since is no longer among them and must not run. The row lock orders this against a pause:
   * whichever commits first wins. The commit is asynchronous (`synchronous_commit` off for this
   * statement): the mark only decides such races, and no guarantee of a fire rests on it being
   * durable, so the burst waits for no disk flush here.
   */
  async markStarted(fires: FireRow[], nowMs: number): Promise<Set<string>> {
    if (fires.length === 0) return new Set();
    const { rows } = await this.db.query<{ fire_id: string }>({
      name: 'fires-mark-started',
      text: `WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true))
       UPDATE fires f SET started_at = $3 FROM unnest($1::text[], $2::int[]) AS u(fire_id, attempt), async_commit
       WHERE f.fire_id = u.fire_id AND f.attempts = u.attempt AND f.lease_owner = $4 AND f.status = 'running' AND f.started_at IS NULL
       RETURNING f.fire_id`,
      values: [fires.map((f) => f.fire_id), fires.map((f) => f.attempts), new Date(nowMs), this.replicaId],
    });
    return new Set(rows.map((r) => r.fire_id));
  }

  /** Gives fires claimed ahead and not started back (shutdown): pending again, the attempt not counted. */
  async releaseUnstarted(fires: FireRow[]): Promise<void> {
    if (fires.length === 0) return;
    await this.db.query(
      `UPDATE fires f SET status = 'pending', attempts = f.attempts - 1, lease_owner = NULL, lease_expires_at = NULL
       FROM unnest($1::text[], $2::int[]) AS u(fire_id, attempt)
       WHERE f.fire_id = u.fire_id AND f.attempts = u.attempt AND f.lease_owner = $3 AND f.status = 'running' AND f.started_at IS NULL`,
      [fires.map((f) => f.fire_id), fires.map((f) => f.attempts), this.replicaId],
    );
  }

  /**
   * Extends the leases of fires this replica executes or holds, to `leaseMs` from now. Only leases
   * with less than two thirds of that left are written (a fire claimed ahead, or one renewed a
   * moment ago, is not): renewing every `leaseMs / 4` keeps each lease over a third ahead.
   */
  async renewLeases(fireIds: string[], nowMs: number, leaseMs: number): Promise<void> {
    if (fireIds.length === 0) return;
    await this.db.query(
      `UPDATE fires SET lease_expires_at = $3 WHERE fire_id = ANY($1::text[]) AND lease_owner = $2 AND status = 'running' AND lease_expires_at < $4`,
      [fireIds, this.replicaId, new Date(nowMs + leaseMs), new Date(nowMs + Math.floor((leaseMs * 2) / 3))],
    );
  }

  /**
   * Records how claimed attempts ended, in one transaction, for those this replica still holds at
   * that attempt, and moves their tasks' last fire, outcome and status along. Returns, per item,
   * whether it was recorded (false: the lease was lost and another replica owns the fire now).
   */
  async settleMany(items: { claimed: FireRow; settlement: FireSettlement }[], nowMs: number): Promise<boolean[]> {
    const retries = items.filter((i) => i.settlement.status === 'retry');
    const finals = items.filter((i) => i.settlement.status !== 'retry');
    return inTransaction(this.db, async (client) => {
      const held = new Set<string>();
      if (retries.length > 0) {
        const { rows } = await client.query<{ fire_id: string }>(
          `UPDATE fires f SET status = 'pending', due_at = u.due_at, attempts = f.attempts - u.uncounted, lease_owner = NULL, lease_expires_at = NULL,
             run_id = u.run_id, error_code = u.code, error_message = u.message
           FROM unnest($2::text[], $3::int[], $4::timestamptz[], $5::int[], $6::text[], $7::text[], $8::text[]) AS u(fire_id, attempt, due_at, uncounted, run_id, code, message)
           WHERE f.fire_id = u.fire_id AND f.lease_owner = $1 AND f.attempts = u.attempt AND f.status = 'running'
           RETURNING f.fire_id`,
          [
            this.replicaId,
            retries.map((i) => i.claimed.fire_id),
            retries.map((i) => i.claimed.attempts),
            retries.map((i) => (i.settlement.status === 'retry' ? new Date(i.settlement.dueAtMs) : null)),
            retries.map((i) => (i.settlement.status === 'retry' && !i.settlement.countAttempt ? 1 : 0)),
            retries.map((i) => i.settlement.runId),
            retries.map((i) => i.settlement.errorCode),
            retries.map((i) => i.settlement.errorMessage),
          ],
        );
        for (const row of rows) held.add(row.fire_id);
      }
      if (finals.length > 0) {
        const { rows } = await client.query<{ fire_id: string; task_id: string; scheduled_at: Date; status: string }>(
          `UPDATE fires f SET status = u.status, run_id = u.run_id, result = u.result::jsonb, error_code = u.code, error_message = u.message,
             finished_at = $2, lease_owner = NULL, lease_expires_at = NULL
           FROM unnest($3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) AS u(fire_id, attempt, status, run_id, result, code, message)
           WHERE f.fire_id = u.fire_id AND f.lease_owner = $1 AND f.attempts = u.attempt AND f.status = 'running'
           RETURNING f.fire_id, f.task_id, f.scheduled_at, f.status`,
          [
            this.replicaId,
            new Date(nowMs),
            finals.map((i) => i.claimed.fire_id),
            finals.map((i) => i.claimed.attempts),
            finals.map((i) => i.settlement.status),
            finals.map((i) => i.settlement.runId),
            finals.map((i) => JSON.stringify(i.settlement.status === 'retry' ? null : (i.settlement.result ?? null))),
            finals.map((i) => i.settlement.errorCode),
            finals.map((i) => i.settlement.errorMessage),
          ],
        );
        for (const row of rows) held.add(row.fire_id);
        // A task's latest fire in the batch is its last fire.
        const latest = new Map<string, { at: Date; status: string }>();
        for (const row of rows) {
          const seen = latest.get(row.task_id);
          if (!seen || seen.at < row.scheduled_at)
            latest.set(row.task_id, { at: row.scheduled_at, status: row.status });
        }
        if (latest.size > 0) {
          await client.query(
            `UPDATE tasks t SET last_fire_at = u.at, last_outcome = u.outcome, updated_at = now(),
               status = CASE
                 WHEN u.outcome = 'waiting_approval' AND t.status IN ('ACTIVE', 'EXPIRED') THEN 'PENDING_APPROVAL'
                 -- A recurring task's later run that finished clears how an earlier one ended.
                 WHEN u.outcome = 'succeeded' AND t.status IN ('PENDING_APPROVAL', 'EXPIRED') AND t.next_fire_at IS NOT NULL THEN 'ACTIVE'
                 WHEN t.status = 'ACTIVE' AND t.next_fire_at IS NULL AND t.trigger_type = 'schedule'
                   AND NOT EXISTS (SELECT 1 FROM fires WHERE fires.task_id = t.task_id AND fires.status IN ('pending', 'running')) THEN 'COMPLETED'
                 ELSE t.status END
             FROM unnest($1::text[], $2::timestamptz[], $3::text[]) AS u(task_id, at, outcome) WHERE t.task_id = u.task_id`,
            [[...latest.keys()], [...latest.values()].map((v) => v.at), [...latest.values()].map((v) => v.status)],
          );
        }
        await recordFireNotifications(
          client,
          rows.map((r) => r.fire_id),
          'fire.finished',
          nowMs,
        );
      }
      return items.map((i) => held.has(i.claimed.fire_id));
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
    const { rows: existing } = await this.db.query<FireRow>(
      'SELECT * FROM fires WHERE task_id = $1 AND fire_key = $2',
      [task.task_id, key],
    );
    return { fire: existing[0]!, duplicate: true };
  }

  async list(
    tenantId: string,
    taskId: string,
    pageSize: number,
    pageToken: string,
  ): Promise<{ fires: FireRow[]; nextPageToken: string }> {
    const after = decodePageToken(pageToken);
    const { rows } = await this.db.query<FireRow>(
      `SELECT * FROM fires WHERE tenant_id = $1 AND task_id = $2 AND ($3::timestamptz IS NULL OR (scheduled_at, fire_id) < ($3, $4))
       ORDER BY scheduled_at DESC, fire_id DESC LIMIT $5`,
      [tenantId, taskId, after?.at ?? null, after?.id ?? '', pageSize + 1],
    );
    const page = rows.slice(0, pageSize);
    const last = page[page.length - 1];
    return {
      fires: page,
      nextPageToken: rows.length > pageSize && last ? encodePageToken({ at: last.scheduled_at, id: last.fire_id }) : '',
    };
  }

  async get(tenantId: string, fireId: string): Promise<FireRow> {
    const { rows } = await this.db.query<FireRow>('SELECT * FROM fires WHERE tenant_id = $1 AND fire_id = $2', [
      tenantId,
      fireId,
    ]);
    if (!rows[0]) throw errors.notFound(ErrorCodes.FIRE_NOT_FOUND, `no fire '${fireId}'`);
    return rows[0];
  }
}
