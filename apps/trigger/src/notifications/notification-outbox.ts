import type pg from 'pg';

/**
 * Records webhook notifications for settled fires of tasks whose output is a webhook, in the
 * caller's transaction (so a fire's outcome and its notification are written together, or not at
 * all). The notification id is derived from the fire and the event, so writing it twice keeps one.
 */
export async function recordFireNotifications(client: pg.PoolClient, fireIds: string[], event: 'fire.finished' | 'fire.approval_expired', nowMs: number): Promise<void> {
  if (fireIds.length === 0) return;
  await client.query(
    `INSERT INTO notifications (notification_id, tenant_id, task_id, fire_id, url, body, status, due_at)
     SELECT 'ntf_' || md5(f.fire_id || ':' || $2 || ':' || f.status), t.tenant_id, t.task_id, f.fire_id, t.spec->'output'->>'url',
       jsonb_build_object(
         'type', $2::text, 'taskId', t.task_id, 'taskName', t.name, 'userId', t.user_id, 'fireId', f.fire_id, 'kind', f.kind,
         'scheduledAt', f.scheduled_at, 'status', f.status, 'runId', nullif(f.run_id, ''), 'result', f.result,
         'error', CASE WHEN f.error_code = '' THEN NULL ELSE jsonb_build_object('code', f.error_code, 'message', f.error_message) END,
         'taskStatus', t.status
       )::text,
       'pending', $3
     FROM fires f JOIN tasks t ON t.task_id = f.task_id
     WHERE f.fire_id = ANY($1::text[]) AND t.spec->'output'->>'channel' = 'webhook'
     ON CONFLICT (notification_id) DO NOTHING`,
    [fireIds, event, new Date(nowMs)],
  );
}
