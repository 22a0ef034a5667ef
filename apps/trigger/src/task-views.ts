import type { triggerV1 } from '@platform/proto';
import type { FireRow, TaskRow } from './task-row.js';

/** A stored task as the gRPC API shows it. */
export function taskView(row: TaskRow): triggerV1.Task {
  return {
    taskId: row.task_id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    name: row.name,
    specJson: JSON.stringify(row.spec),
    status: row.status,
    triggerType: row.trigger_type,
    nextFireAt: row.next_fire_at ?? undefined,
    lastFireAt: row.last_fire_at ?? undefined,
    lastOutcome: row.last_outcome,
    lastError: row.last_error_at
      ? { code: row.last_error_code, message: row.last_error_message, at: row.last_error_at }
      : undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A stored fire as the gRPC API shows it. */
export function fireView(row: FireRow): triggerV1.Fire {
  return {
    fireId: row.fire_id,
    taskId: row.task_id,
    fireKey: row.fire_key,
    kind: row.kind,
    scheduledAt: row.scheduled_at,
    status: row.status,
    attempts: row.attempts,
    missedCount: row.missed_count,
    runId: row.run_id,
    resultJson: row.result === null || row.result === undefined ? '' : JSON.stringify(row.result),
    errorCode: row.error_code,
    errorMessage: row.error_message,
    startedAt: row.started_at ?? undefined,
    finishedAt: row.finished_at ?? undefined,
  };
}
