import type { ExternalEvent } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type pg from 'pg';
import type { Clock } from './clock.js';
import { EventFilterCache, FilterError, FilterErrorCodes, type FilterLimits } from './event-filter.js';
import type { TaskRow } from './task-row.js';

/** An event as routed: its id is settled (given or assigned). */
export type RoutedEvent = ExternalEvent & { eventId: string };

export interface RouteResult {
  eventId: string;
  firedTaskIds: string[];
}

interface FailedFilter {
  taskId: string;
  code: string;
  message: string;
}

/**
 * Matches an external event against the tenant's active event tasks and records a fire for each
 * match. Candidates come from the `(tenant, source, type)` index, never a scan of all tasks; only
 * they have their filter evaluated. The fire key is the event id, so an event delivered twice
 * fires each task once.
 *
 * Filters run on the event loop, one candidate at a time, yielding between candidates: RE2
 * bounds one evaluation (program size x text length, both limited), and the yield lets every
 * other request (another tenant's ListTasks, another event) in between, so an event with many
 * candidates delays others by at most one evaluation, not by all of them (docs/triggers.md).
 * A filter that fails on the event does not match, and its error is recorded on the task.
 */
export class EventRouter {
  private readonly filters: EventFilterCache;

  constructor(
    private readonly db: pg.Pool,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Called after fires were recorded, so they are claimed at once. */
    private readonly onFires: () => void,
    filterLimits?: FilterLimits,
  ) {
    this.filters = new EventFilterCache(10_000, filterLimits);
  }

  async route(tenantId: string, event: ExternalEvent): Promise<RouteResult> {
    const routed: RoutedEvent = { ...event, eventId: event.eventId ?? `evt_${randomUUID()}` };
    const { rows } = await this.db.query<Pick<TaskRow, 'task_id' | 'spec'>>(
      `SELECT task_id, spec FROM tasks
       WHERE tenant_id = $1 AND trigger_type = 'event' AND status = 'ACTIVE' AND event_source = $2 AND event_type = $3`,
      [tenantId, routed.source, routed.type],
    );
    const matching: string[] = [];
    const failed: FailedFilter[] = [];
    for (const task of rows) {
      const outcome = this.matches(task, routed);
      if (outcome === true) matching.push(task.task_id);
      else if (outcome !== false) failed.push(outcome);
      await yieldToEventLoop();
    }
    await this.recordFailures(failed);
    if (matching.length === 0) return { eventId: routed.eventId, firedTaskIds: [] };
    const now = new Date(this.clock.now());
    const { rows: fired } = await this.db.query<{ task_id: string }>(
      `INSERT INTO fires (fire_id, task_id, tenant_id, fire_key, kind, scheduled_at, due_at, status, payload)
       SELECT 'fire_' || gen_random_uuid(), t.task_id, $2, $3, 'event', $4, $4, 'pending', $5::jsonb
       FROM unnest($1::text[]) AS t(task_id)
       ON CONFLICT (task_id, fire_key) DO NOTHING RETURNING task_id`,
      [matching, tenantId, `event:${routed.eventId}`, now, JSON.stringify(routed)],
    );
    if (fired.length > 0) this.onFires();
    this.logger.debug(
      { tenantId, eventId: routed.eventId, candidates: rows.length, fired: fired.length, failed: failed.length },
      'event routed',
    );
    return { eventId: routed.eventId, firedTaskIds: fired.map((f) => f.task_id) };
  }

  private matches(task: Pick<TaskRow, 'task_id' | 'spec'>, event: RoutedEvent): boolean | FailedFilter {
    const trigger = task.spec.trigger;
    if (trigger.type !== 'event' || trigger.filter === undefined) return true;
    try {
      return this.filters.get(trigger.filter)(event.data);
    } catch (err) {
      const known = err instanceof FilterError;
      // Filters are compiled at creation; one that fails now does not match, and the task says why.
      if (!known) this.logger.warn({ err, taskId: task.task_id }, 'an event filter failed');
      return {
        taskId: task.task_id,
        code: known ? err.code : FilterErrorCodes.evaluationFailed,
        message: (err as Error).message.slice(0, 500),
      };
    }
  }

  /** The tasks' lastError, in one statement for the event. */
  private async recordFailures(failed: FailedFilter[]): Promise<void> {
    if (failed.length === 0) return;
    await this.db.query(
      `UPDATE tasks t SET last_error_code = f.code, last_error_message = f.message, last_error_at = $4
       FROM unnest($1::text[], $2::text[], $3::text[]) AS f(task_id, code, message) WHERE t.task_id = f.task_id`,
      [
        failed.map((f) => f.taskId),
        failed.map((f) => f.code),
        failed.map((f) => f.message),
        new Date(this.clock.now()),
      ],
    );
  }
}
