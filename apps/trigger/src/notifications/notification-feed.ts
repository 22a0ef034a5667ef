import type { triggerV1 } from '@platform/proto';
import type pg from 'pg';

interface FeedRow {
  seq: string;
  notification_id: string;
  type: string;
  task_id: string;
  user_id: string;
  body: unknown;
  created_at: Date;
}

/**
 * Reads a tenant's notification feed (`notification_feed`, written with the fires' outcomes) after
 * a seq, oldest first; with a user, only the notifications of that user's tasks (and of tasks that
 * name no user). Every read is
 * scoped by tenant: another tenant's notifications are never returned, whatever the seq.
 */
export class NotificationFeed {
  constructor(private readonly db: pg.Pool) {}

  async list(tenantId: string, userId: string, afterSeq: number, limit: number): Promise<triggerV1.Notification[]> {
    const { rows } = await this.db.query<FeedRow>(
      `SELECT seq, notification_id, type, task_id, user_id, body, created_at FROM notification_feed
       WHERE tenant_id = $1 AND seq > $2 AND ($3 = '' OR user_id = $3 OR user_id = '') ORDER BY seq LIMIT $4`,
      [tenantId, afterSeq, userId, limit],
    );
    return rows.map((r) => ({
      seq: Number(r.seq),
      notificationId: r.notification_id,
      type: r.type,
      taskId: r.task_id,
      userId: r.user_id,
      bodyJson: JSON.stringify(r.body),
      createdAt: r.created_at,
    }));
  }

  /** Drops notifications older than the retention (a stream resumed after that starts from the oldest kept). */
  async prune(olderThanMs: number): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM notification_feed WHERE created_at < $1', [
      new Date(olderThanMs),
    ]);
    return rowCount ?? 0;
  }
}
