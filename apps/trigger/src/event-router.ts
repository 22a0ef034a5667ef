import type { ExternalEvent } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Clock } from './clock.js';
import { EventFilterCache } from './event-filter.js';
import type { TaskRow } from './task-row.js';

/** An event as routed: its id is settled (given or assigned). */
export type RoutedEvent = ExternalEvent & { eventId: string };

export interface RouteResult {
  eventId: string;
  firedTaskIds: string[];
}

/**
 * Matches an external event against the tenant's active event tasks and records a fire for each
 * match. Candidates come from the `(tenant, source, type)` index, never a scan of all tasks; only
 * they have their filter evaluated. The fire key is the event id, so an event delivered twice
 * fires each task once.
 */
export class EventRouter {
  private readonly filters = new EventFilterCache(10_000);

  constructor(
    private readonly db: pg.Pool,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Called after fires were recorded, so they are claimed at once. */
    private readonly onFires: () => void,
  ) {}

  async route(tenantId: string, event: ExternalEvent): Promise<RouteResult> {
    const routed: RoutedEvent = { ...event, eventId: event.eventId ?? `evt_${randomUUID()}` };
    const { rows } = await this.db.query<Pick<TaskRow, 'task_id' | 'spec'>>(
      `SELECT task_id, spec FROM tasks
       WHERE tenant_id = $1 AND trigger_type = 'event' AND status = 'ACTIVE' AND event_source = $2 AND event_type = $3`,
      [tenantId, routed.source, routed.type],
    );
    const matching = rows.filter((task) => this.matches(task, routed));
    if (matching.length === 0) return { eventId: routed.eventId, firedTaskIds: [] };
    const now = new Date(this.clock.now());
    const { rows: fired } = await this.db.query<{ task_id: string }>(
      `INSERT INTO fires (fire_id, task_id, tenant_id, fire_key, kind, scheduled_at, due_at, status, payload)
       SELECT 'fire_' || gen_random_uuid(), t.task_id, $2, $3, 'event', $4, $4, 'pending', $5::jsonb
       FROM unnest($1::text[]) AS t(task_id)
       ON CONFLICT (task_id, fire_key) DO NOTHING RETURNING task_id`,
      [matching.map((t) => t.task_id), tenantId, `event:${routed.eventId}`, now, JSON.stringify(routed)],
    );
    if (fired.length > 0) this.onFires();
    this.logger.debug({ tenantId, eventId: routed.eventId, candidates: rows.length, fired: fired.length }, 'event routed');
    return { eventId: routed.eventId, firedTaskIds: fired.map((f) => f.task_id) };
  }

  private matches(task: Pick<TaskRow, 'task_id' | 'spec'>, event: RoutedEvent): boolean {
    const trigger = task.spec.trigger;
    if (trigger.type !== 'event' || trigger.filter === undefined) return true;
    try {
      return this.filters.get(trigger.filter)(event.data);
    } catch (err) {
      // Filters are checked at creation; one that fails now is logged and does not match.
      this.logger.warn({ err, taskId: task.task_id }, 'an event filter failed');
      return false;
    }
  }
}
