import type { TaskSpec } from './task-spec.js';

export type TaskStatus = 'ACTIVE' | 'PAUSED' | 'DISABLED' | 'COMPLETED' | 'PENDING_APPROVAL' | 'EXPIRED';

/** A task as stored. */
export interface TaskRow {
  task_id: string;
  tenant_id: string;
  user_id: string;
  name: string;
  spec: TaskSpec;
  trigger_type: string;
  executor: string;
  status: TaskStatus;
  next_fire_at: Date | null;
  anchor_at: Date;
  last_fire_at: Date | null;
  last_outcome: string;
  webhook_secret: string | null;
  /** The last filter or condition evaluation that failed ('' and null when none did since the spec was set). */
  last_error_code: string;
  last_error_message: string;
  last_error_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

type FireStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled' | 'waiting_approval';
export type FireKind = 'schedule' | 'event' | 'condition' | 'manual';

/** A fire as stored. */
export interface FireRow {
  fire_id: string;
  task_id: string;
  tenant_id: string;
  fire_key: string;
  kind: FireKind;
  scheduled_at: Date;
  due_at: Date;
  status: FireStatus;
  attempts: number;
  missed_count: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  payload: unknown;
  run_id: string;
  result: unknown;
  error_code: string;
  error_message: string;
  started_at: Date | null;
  finished_at: Date | null;
}

/** A fire key for a scheduled time: the same time always gives the same key. */
export function scheduledFireKey(scheduledAtMs: number): string {
  return `at:${new Date(scheduledAtMs).toISOString()}`;
}
