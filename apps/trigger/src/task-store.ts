import { QUOTA_NAMES } from '@platform/contracts';
import { errors, inTransaction, jsonbText, PlatformError, quotaExceeded } from '@platform/service-kit';
import { newWebhookSecret } from '@platform/webhooks';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { decodePageToken, encodePageToken } from './page-token.js';
import { Schedule } from './schedule.js';
import type { TaskRow, TaskStatus } from './task-row.js';
import type { TaskSpec } from './task-spec.js';
import { ErrorCodes } from './error-codes.js';

const UNIQUE_VIOLATION = '23505';

export interface NewTask {
  tenantId: string;
  userId: string;
  spec: TaskSpec;
  requestId: string | null;
  nowMs: number;
  /** The tenant's task quota (its tier's). */
  quota: { maxTasks: number; tier: string };
}

export interface TaskPage {
  tasks: TaskRow[];
  nextPageToken: string;
}

function taskNotFound(taskId: string): PlatformError {
  return errors.notFound(ErrorCodes.TASK_NOT_FOUND, `no task '${taskId}'`);
}

/**
 * The first time a schedule task fires from `nowMs` on (inclusive), or refuses a schedule that
 * never fires; null for tasks that fire on events, not at times.
 */
function firstFireAt(spec: TaskSpec, anchorMs: number, nowMs: number): number | null {
  if (spec.trigger.type !== 'schedule') return null;
  const next = new Schedule(spec.trigger, anchorMs).nextAfter(nowMs - 1);
  if (next === null)
    throw errors.invalidArgument(ErrorCodes.INVALID_TASK_SPEC, 'trigger.at: is in the past', {
      details: { issues: [{ field: 'trigger.at', message: 'is in the past' }] },
    });
  return next;
}

/** Postgres access for tasks. Every query is scoped by tenant. */
export class TaskStore {
  constructor(private readonly db: pg.Pool) {}

  async create(input: NewTask): Promise<{ task: TaskRow; duplicate: boolean }> {
    if (input.requestId) {
      const existing = await this.byRequestId(input.tenantId, input.requestId);
      if (existing) return { task: existing, duplicate: true };
    }
    const nextFireAt = firstFireAt(input.spec, input.nowMs, input.nowMs);
    try {
      const task = await inTransaction(this.db, async (client) => {
        // One tenant's creations are serialized so the count check holds under concurrency.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`trigger-tasks:${input.tenantId}`]);
        const { rows: counted } = await client.query<{ n: string }>(
          'SELECT count(*) AS n FROM tasks WHERE tenant_id = $1',
          [input.tenantId],
        );
        const { maxTasks, tier } = input.quota;
        if (Number(counted[0]!.n) >= maxTasks) {
          throw quotaExceeded({
            quota: QUOTA_NAMES.tasks,
            limit: maxTasks,
            tier,
            message: `this tenant has ${maxTasks} tasks, the most its tier allows; delete one first`,
          });
        }
        const { rows } = await client.query<TaskRow>(
          `INSERT INTO tasks (task_id, tenant_id, user_id, name, spec, trigger_type, executor, status, next_fire_at, anchor_at, request_id, event_source, event_type, webhook_secret, next_poll_at)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, 'ACTIVE', $8, $9, $10, $11, $12, $13, CASE WHEN $6 = 'condition' THEN $9::timestamptz END) RETURNING *`,
          [
            `task_${randomUUID()}`,
            input.tenantId,
            input.userId,
            input.spec.name ?? '',
            jsonbText(input.spec),
            input.spec.trigger.type,
            input.spec.executor,
            dateOrNull(nextFireAt),
            new Date(input.nowMs),
            input.requestId,
            ...eventKey(input.spec),
            input.spec.output.channel === 'webhook' ? newWebhookSecret() : null,
          ],
        );
        return rows[0]!;
      });
      return { task, duplicate: false };
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION && input.requestId) {
        const existing = await this.byRequestId(input.tenantId, input.requestId);
        if (existing) return { task: existing, duplicate: true };
      }
      throw err;
    }
  }

  private async byRequestId(tenantId: string, requestId: string): Promise<TaskRow | undefined> {
    const { rows } = await this.db.query<TaskRow>('SELECT * FROM tasks WHERE tenant_id = $1 AND request_id = $2', [
      tenantId,
      requestId,
    ]);
    return rows[0];
  }

  async get(tenantId: string, taskId: string): Promise<TaskRow> {
    const { rows } = await this.db.query<TaskRow>('SELECT * FROM tasks WHERE tenant_id = $1 AND task_id = $2', [
      tenantId,
      taskId,
    ]);
    if (!rows[0]) throw taskNotFound(taskId);
    return rows[0];
  }

  async list(tenantId: string, pageSize: number, pageToken: string): Promise<TaskPage> {
    const after = decodePageToken(pageToken);
    const { rows } = await this.db.query<TaskRow>(
      `SELECT * FROM tasks WHERE tenant_id = $1 AND ($2::timestamptz IS NULL OR (created_at, task_id) < ($2, $3))
       ORDER BY created_at DESC, task_id DESC LIMIT $4`,
      [tenantId, after?.at ?? null, after?.id ?? '', pageSize + 1],
    );
    const page = rows.slice(0, pageSize);
    const last = page[page.length - 1];
    return {
      tasks: page,
      nextPageToken: rows.length > pageSize && last ? encodePageToken({ at: last.created_at, id: last.task_id }) : '',
    };
  }

  /** Replaces the spec; the schedule starts again from now and planned fires not started are cancelled. */
  async update(tenantId: string, taskId: string, spec: TaskSpec, nowMs: number): Promise<TaskRow> {
    const nextFireAt = firstFireAt(spec, nowMs, nowMs);
    return inTransaction(this.db, async (client) => {
      const { rows } = await client.query<TaskRow>(
        `UPDATE tasks SET spec = $3::jsonb, name = $4, trigger_type = $5, executor = $6, anchor_at = $7,
           next_fire_at = CASE WHEN status = 'ACTIVE' THEN $8::timestamptz ELSE NULL END, event_source = $9, event_type = $10,
           webhook_secret = CASE WHEN $11::boolean THEN coalesce(webhook_secret, $12) END,
           next_poll_at = CASE WHEN $5 = 'condition' AND status = 'ACTIVE' THEN $7::timestamptz END, condition_met = NULL,
           last_error_code = '', last_error_message = '', last_error_at = NULL, updated_at = now()
         WHERE tenant_id = $1 AND task_id = $2 RETURNING *`,
        [
          tenantId,
          taskId,
          jsonbText(spec),
          spec.name ?? '',
          spec.trigger.type,
          spec.executor,
          new Date(nowMs),
          dateOrNull(nextFireAt),
          ...eventKey(spec),
          spec.output.channel === 'webhook',
          newWebhookSecret(),
        ],
      );
      if (!rows[0]) throw taskNotFound(taskId);
      await cancelPlannedFires(client, taskId);
      return rows[0];
    });
  }

  async delete(tenantId: string, taskId: string): Promise<void> {
    const { rowCount } = await this.db.query('DELETE FROM tasks WHERE tenant_id = $1 AND task_id = $2', [
      tenantId,
      taskId,
    ]);
    if (!rowCount) throw taskNotFound(taskId);
  }

  /** ACTIVE -> PAUSED; pausing a paused task changes nothing. Planned fires not started are cancelled. */
  async pause(tenantId: string, taskId: string): Promise<TaskRow> {
    return inTransaction(this.db, async (client) => {
      const task = await lockTask(client, tenantId, taskId);
      if (task.status === 'PAUSED') return task;
      if (task.status !== 'ACTIVE') throw statusConflict(task, 'paused');
      await cancelPlannedFires(client, taskId);
      await client.query('UPDATE tasks SET next_poll_at = NULL WHERE task_id = $1', [taskId]);
      return setStatus(client, taskId, 'PAUSED', null);
    });
  }

  /** PAUSED -> ACTIVE from now on: times that passed while paused are not fired. */
  async resume(tenantId: string, taskId: string, nowMs: number): Promise<TaskRow> {
    return inTransaction(this.db, async (client) => {
      const task = await lockTask(client, tenantId, taskId);
      if (task.status === 'ACTIVE') return task;
      if (task.status !== 'PAUSED') throw statusConflict(task, 'resumed');
      if (task.spec.trigger.type === 'condition') {
        await client.query('UPDATE tasks SET next_poll_at = $2, condition_met = NULL WHERE task_id = $1', [
          taskId,
          new Date(nowMs),
        ]);
      }
      if (task.spec.trigger.type !== 'schedule') return setStatus(client, taskId, 'ACTIVE', null);
      const next = new Schedule(task.spec.trigger, task.anchor_at.getTime()).nextAfter(nowMs - 1);
      return setStatus(client, taskId, next === null ? 'COMPLETED' : 'ACTIVE', next);
    });
  }
}

function dateOrNull(ms: number | null): Date | null {
  return ms === null ? null : new Date(ms);
}

/** The indexed (source, type) of an event task; nulls for other tasks. */
function eventKey(spec: TaskSpec): [string | null, string | null] {
  return spec.trigger.type === 'event' ? [spec.trigger.source, spec.trigger.eventType] : [null, null];
}

function statusConflict(task: TaskRow, verb: string): PlatformError {
  return new PlatformError(
    'failed_precondition',
    ErrorCodes.TASK_STATUS_CONFLICT,
    `task '${task.task_id}' is ${task.status} and cannot be ${verb}`,
    { details: { status: task.status } },
  );
}

async function lockTask(client: pg.PoolClient, tenantId: string, taskId: string): Promise<TaskRow> {
  const { rows } = await client.query<TaskRow>('SELECT * FROM tasks WHERE tenant_id = $1 AND task_id = $2 FOR UPDATE', [
    tenantId,
    taskId,
  ]);
  if (!rows[0]) throw taskNotFound(taskId);
  return rows[0];
}

async function setStatus(
  client: pg.PoolClient,
  taskId: string,
  status: TaskStatus,
  nextFireAt: number | null,
): Promise<TaskRow> {
  const { rows } = await client.query<TaskRow>(
    'UPDATE tasks SET status = $2, next_fire_at = $3, updated_at = now() WHERE task_id = $1 RETURNING *',
    [taskId, status, nextFireAt === null ? null : new Date(nextFireAt)],
  );
  return rows[0]!;
}

/**
 * Scheduled fires planned ahead and not started yet are cancelled: pending ones, and those a
 * replica claimed ahead of their time (`running`, `started_at` null), which that replica then
 * finds gone when their time comes. A fire that started finishes.
 */
async function cancelPlannedFires(client: pg.PoolClient, taskId: string): Promise<void> {
  await client.query(
    `UPDATE fires SET status = 'cancelled', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
     WHERE task_id = $1 AND kind = 'schedule' AND (status = 'pending' OR (status = 'running' AND started_at IS NULL))`,
    [taskId],
  );
}
