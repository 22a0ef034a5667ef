import { inTransaction, type Logger } from '@platform/service-kit';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Clock } from './clock.js';
import { planFires } from './fire-plan.js';
import { Schedule } from './schedule.js';
import { scheduledFireKey, type TaskRow } from './task-row.js';

export interface FirePlannerSettings {
  planAheadMs: number;
  misfireGraceMs: number;
  maxCatchUp: number;
  batchSize: number;
}

export interface PlanRoundResult {
  /** Tasks planned in this round. */
  tasks: number;
  /** Fires recorded to be executed (pending), and the earliest of their times. */
  pendingFires: number;
  earliestDueMs: number | null;
}

type DueTask = Pick<TaskRow, 'task_id' | 'tenant_id' | 'spec' | 'anchor_at' | 'next_fire_at' | 'status'>;

/**
 * Turns scheduled times into fire rows. A round takes due tasks with `FOR UPDATE SKIP LOCKED`, so
 * replicas share the work without waiting on each other, records their fires (misfires under the
 * task's policy, then every time up to the planning horizon) and moves `next_fire_at` on, all in
 * one transaction: a replica that dies mid-round leaves nothing behind, and the next round
 * (any replica's) plans the same times again. The unique `(task_id, fire_key)` key stops a time
 * from ever being recorded twice, whatever happens.
 */
export class FirePlanner {
  constructor(
    private readonly db: pg.Pool,
    private readonly clock: Clock,
    private readonly settings: FirePlannerSettings,
    private readonly logger: Logger,
  ) {}

  /** Plans every due task (in batches) and reports what it recorded. */
  async planDue(): Promise<PlanRoundResult> {
    const total: PlanRoundResult = { tasks: 0, pendingFires: 0, earliestDueMs: null };
    for (;;) {
      const round = await this.planBatch();
      total.tasks += round.tasks;
      total.pendingFires += round.pendingFires;
      if (round.earliestDueMs !== null)
        total.earliestDueMs = Math.min(total.earliestDueMs ?? Infinity, round.earliestDueMs);
      if (round.tasks < this.settings.batchSize) return total;
    }
  }

  private async planBatch(): Promise<PlanRoundResult> {
    const nowMs = this.clock.now();
    return inTransaction(this.db, async (client) => {
      const { rows } = await client.query<DueTask>(
        `SELECT task_id, tenant_id, spec, anchor_at, next_fire_at, status FROM tasks
         WHERE status IN ('ACTIVE', 'PENDING_APPROVAL', 'EXPIRED') AND next_fire_at IS NOT NULL AND next_fire_at <= $1
         ORDER BY next_fire_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [new Date(nowMs + this.settings.planAheadMs), this.settings.batchSize],
      );
      const fires = {
        ids: [] as string[],
        taskIds: [] as string[],
        tenants: [] as string[],
        keys: [] as string[],
        times: [] as Date[],
        statuses: [] as string[],
        missed: [] as number[],
      };
      const updates = { taskIds: [] as string[], next: [] as (Date | null)[], statuses: [] as string[] };
      let pendingFires = 0;
      let earliestDueMs: number | null = null;
      for (const task of rows) {
        const trigger = task.spec.trigger;
        if (trigger.type !== 'schedule') throw new Error(`task ${task.task_id} has a next fire time but no schedule`);
        const plan = planFires(
          new Schedule(trigger, task.anchor_at.getTime()),
          task.next_fire_at!.getTime(),
          task.spec.misfire,
          {
            nowMs,
            planAheadMs: this.settings.planAheadMs,
            misfireGraceMs: this.settings.misfireGraceMs,
            maxCatchUp: this.settings.maxCatchUp,
            maxPlanned: this.settings.batchSize,
          },
        );
        let pendingOfTask = 0;
        for (const fire of plan.fires) {
          fires.ids.push(`fire_${randomUUID()}`);
          fires.taskIds.push(task.task_id);
          fires.tenants.push(task.tenant_id);
          fires.keys.push(scheduledFireKey(fire.scheduledAt));
          fires.times.push(new Date(fire.scheduledAt));
          fires.statuses.push(fire.status);
          fires.missed.push(fire.missedCount);
          if (fire.status === 'pending') {
            pendingOfTask++;
            earliestDueMs = Math.min(earliestDueMs ?? Infinity, fire.scheduledAt);
          }
        }
        pendingFires += pendingOfTask;
        updates.taskIds.push(task.task_id);
        updates.next.push(plan.nextFireAt === null ? null : new Date(plan.nextFireAt));
        // A one-time task whose only time was skipped is done; otherwise its last fire completes it.
        updates.statuses.push(
          plan.nextFireAt === null && pendingOfTask === 0 && task.status === 'ACTIVE' ? 'COMPLETED' : task.status,
        );
      }
      if (fires.ids.length > 0) {
        await client.query(
          `INSERT INTO fires (fire_id, task_id, tenant_id, fire_key, kind, scheduled_at, due_at, status, missed_count, finished_at)
           SELECT f.id, f.task_id, f.tenant_id, f.key, 'schedule', f.at, f.at, f.status, f.missed, CASE WHEN f.status = 'skipped' THEN $8::timestamptz END
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::int[]) AS f(id, task_id, tenant_id, key, at, status, missed)
           ON CONFLICT (task_id, fire_key) DO NOTHING`,
          [
            fires.ids,
            fires.taskIds,
            fires.tenants,
            fires.keys,
            fires.times,
            fires.statuses,
            fires.missed,
            new Date(nowMs),
          ],
        );
      }
      if (updates.taskIds.length > 0) {
        await client.query(
          `UPDATE tasks t SET next_fire_at = u.next, status = u.status, updated_at = now()
           FROM unnest($1::text[], $2::timestamptz[], $3::text[]) AS u(task_id, next, status) WHERE t.task_id = u.task_id`,
          [updates.taskIds, updates.next, updates.statuses],
        );
      }
      if (rows.length > 0) this.logger.debug({ tasks: rows.length, pendingFires }, 'planned fires');
      return { tasks: rows.length, pendingFires, earliestDueMs };
    });
  }
}
