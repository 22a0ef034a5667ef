import type pg from 'pg';

/** What a notification is about: a fire's outcome (an approval request when it waits), or an expired approval. */
export type NotificationEvent = 'fire.finished' | 'fire.approval_expired';

/** The one lock every feed writer takes before inserting, so seqs become visible in commit order. */
const FEED_LOCK = "hashtext('trigger.notification_feed')";

interface PendingNotification {
  id: string;
  tenant_id: string;
  user_id: string;
  task_id: string;
  fire_id: string;
  channel: string;
  url: string | null;
  type: string;
  body: string;
}

/**
 * Records the notifications of settled fires in the caller's transaction (so a fire's outcome and
 * its notifications are written together, or not at all), one per channel adapter:
 * - the webhook outbox (`notifications`) for tasks whose output is a webhook, delivered and
 *   retried by `WebhookDispatcher`;
 * - the tenant's feed (`notification_feed`), read by the api's `GET /v1/notifications` stream: the
 *   results of tasks whose output is `sse` or `webhook`, and, whatever the output, the approval
 *   requests of triggered runs and their expiry (the user must be told).
 * A fire that waits for approval is announced as `fire.approval_requested`. The id is derived from
 * the fire, the event and the fire's status, so writing it twice keeps one.
 */
export async function recordFireNotifications(
  client: pg.PoolClient,
  fireIds: string[],
  event: NotificationEvent,
  nowMs: number,
): Promise<void> {
  if (fireIds.length === 0) return;
  const { rows } = await client.query<PendingNotification>(
    `SELECT n.*, jsonb_build_object(
         'type', n.type, 'taskId', n.task_id, 'taskName', n.task_name, 'userId', n.user_id, 'fireId', n.fire_id, 'kind', n.kind,
         'scheduledAt', n.scheduled_at, 'status', n.status, 'runId', nullif(n.run_id, ''), 'result', n.result,
         'error', CASE WHEN n.error_code = '' THEN NULL ELSE jsonb_build_object('code', n.error_code, 'message', n.error_message) END,
         'taskStatus', n.task_status
       )::text AS body
     FROM (
       SELECT 'ntf_' || md5(f.fire_id || ':' || $2 || ':' || f.status) AS id, t.tenant_id, t.user_id, t.task_id, t.name AS task_name, f.fire_id, f.kind,
         f.scheduled_at, f.status, f.run_id, f.result, f.error_code, f.error_message, t.status AS task_status,
         coalesce(t.spec->'output'->>'channel', 'none') AS channel, t.spec->'output'->>'url' AS url,
         CASE WHEN $2 = 'fire.finished' AND f.status = 'waiting_approval' THEN 'fire.approval_requested' ELSE $2 END AS type
       FROM fires f JOIN tasks t ON t.task_id = f.task_id
       WHERE f.fire_id = ANY($1::text[])
     ) n
     WHERE n.channel <> 'none' OR n.type <> 'fire.finished'`,
    [fireIds, event],
  );
  const hooks = rows.filter((r) => r.channel === 'webhook' && r.url);
  if (hooks.length > 0) {
    await client.query(
      `INSERT INTO notifications (notification_id, tenant_id, task_id, fire_id, url, body, status, due_at)
       SELECT id, tenant_id, task_id, fire_id, url, body, 'pending', $6
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $7::text[]) AS u(id, tenant_id, task_id, fire_id, url, body)
       ON CONFLICT (notification_id) DO NOTHING`,
      [
        hooks.map((r) => r.id),
        hooks.map((r) => r.tenant_id),
        hooks.map((r) => r.task_id),
        hooks.map((r) => r.fire_id),
        hooks.map((r) => r.url),
        new Date(nowMs),
        hooks.map((r) => r.body),
      ],
    );
  }
  if (rows.length > 0) {
    await client.query(`SELECT pg_advisory_xact_lock(${FEED_LOCK})`);
    await client.query(
      `INSERT INTO notification_feed (notification_id, tenant_id, user_id, task_id, type, body, created_at)
       SELECT id, tenant_id, user_id, task_id, type, body::jsonb, $7
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(id, tenant_id, user_id, task_id, type, body)
       ON CONFLICT (notification_id) DO NOTHING`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.tenant_id),
        rows.map((r) => r.user_id),
        rows.map((r) => r.task_id),
        rows.map((r) => r.type),
        rows.map((r) => r.body),
        new Date(nowMs),
      ],
    );
  }
}
