import { PgWebhookOutbox } from '@platform/webhooks';
import type pg from 'pg';

/**
 * The trigger's webhook outbox (`notifications`, written with the fires' outcomes by
 * `recordFireNotifications`), delivered by the shared `WebhookDispatcher` of libs/webhooks; each
 * delivery is signed with its task's secret.
 */
export function triggerWebhookOutbox(db: pg.Pool): PgWebhookOutbox {
  return new PgWebhookOutbox(db, {
    table: 'notifications',
    idColumn: 'notification_id',
    secretSql: '(SELECT t.webhook_secret FROM tasks t WHERE t.task_id = n.task_id)',
  });
}
