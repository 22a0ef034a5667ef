import { egressRefusalOf, redactUrl, redactUrlsIn, type EgressGuard } from '@platform/egress';
import type { Logger } from '@platform/service-kit';
import type pg from 'pg';
import type { Clock } from '../clock.js';
import { signWebhook, WEBHOOK_HEADERS } from './webhook-signature.js';

export interface WebhookSettings {
  replicaId: string;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  batchSize: number;
  leaseMs: number;
}

interface Claimed {
  notification_id: string;
  url: string;
  body: string;
  attempts: number;
  webhook_secret: string | null;
}

/** Answers worth trying again: the receiver is down or busy; anything else 4xx (and any 3xx: redirects are not followed) is final. */
function retryable(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/**
 * A failed attempt as it is logged and stored on the notification: an egress refusal (final,
 * unless the host did not resolve) or a network error by its code, with every URL in the message
 * redacted (no user name, password or query value).
 */
function failedAttempt(err: unknown): { retry: boolean; error: string } {
  const refused = egressRefusalOf(err);
  if (refused) return { retry: refused.reason === 'unresolved', error: `EGRESS_REFUSED: ${refused.message}` };
  const cause = (err as Error).cause as { code?: unknown; message?: unknown } | undefined;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  return { retry: true, error: redactUrlsIn([(err as Error).message, detail].filter(Boolean).join(': ')) };
}

/**
 * Delivers webhook notifications from the outbox: claims due ones (`FOR UPDATE SKIP LOCKED`, with
 * a lease, so a replica's death only delays them), POSTs each signed with its task's secret, and
 * records delivered / retry with exponential backoff / failed. The `webhook-id` header is the same
 * on every attempt, so receivers dedupe on it. Every POST goes through the egress guard: the
 * receiver's address is vetted again when the connection opens (a URL that resolves inside now is
 * not connected to), the connection is pinned to the vetted address, and redirects are not followed.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly db: pg.Pool,
    private readonly clock: Clock,
    private readonly egress: EgressGuard,
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.tick(), intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One round: deliver what is due. Resolves with how many deliveries were attempted. */
  async deliverDue(): Promise<number> {
    const now = this.clock.now();
    const { rows } = await this.db.query<Claimed>(
      `WITH due AS (
         SELECT notification_id FROM notifications
         WHERE (status = 'pending' AND due_at <= $1) OR (status = 'sending' AND lease_expires_at <= $1)
         ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE notifications n SET status = 'sending', attempts = n.attempts + 1, lease_owner = $3, lease_expires_at = $4
       FROM due, tasks t WHERE n.notification_id = due.notification_id AND t.task_id = n.task_id
       RETURNING n.notification_id, n.url, n.body, n.attempts, t.webhook_secret`,
      [new Date(now), this.settings.batchSize, this.settings.replicaId, new Date(now + this.settings.leaseMs)],
    );
    await Promise.all(rows.map((row) => this.deliver(row)));
    return rows.length;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while ((await this.deliverDue()) > 0);
    } catch (err) {
      this.logger.error({ err }, 'webhook round failed');
    } finally {
      this.running = false;
    }
  }

  private async deliver(row: Claimed): Promise<void> {
    let outcome: { delivered: true } | { delivered: false; retry: boolean; error: string };
    try {
      const timestamp = Math.floor(this.clock.now() / 1000);
      const response = await this.egress.fetch(row.url, {
        method: 'POST',
        signal: AbortSignal.timeout(this.settings.timeoutMs),
        headers: {
          'content-type': 'application/json',
          [WEBHOOK_HEADERS.id]: row.notification_id,
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.signature]: signWebhook(row.webhook_secret ?? '', row.notification_id, timestamp, row.body),
        },
        body: row.body,
      });
      await response.body?.cancel();
      outcome = response.ok
        ? { delivered: true }
        : { delivered: false, retry: retryable(response.status), error: `HTTP ${response.status}` };
    } catch (err) {
      outcome = { delivered: false, ...failedAttempt(err) };
    }
    const now = this.clock.now();
    if (outcome.delivered) {
      await this.settle(row, `status = 'delivered', delivered_at = $3, last_error = ''`, [new Date(now)]);
      return;
    }
    const final = !outcome.retry || row.attempts >= this.settings.maxAttempts;
    const delay = Math.min(this.settings.retryMaxMs, this.settings.retryBaseMs * 2 ** (row.attempts - 1));
    this.logger.warn(
      {
        notificationId: row.notification_id,
        url: redactUrl(row.url),
        attempt: row.attempts,
        error: outcome.error,
        final,
      },
      'webhook delivery failed',
    );
    await this.settle(
      row,
      final ? `status = 'failed', last_error = $3` : `status = 'pending', due_at = $4, last_error = $3`,
      final ? [outcome.error] : [outcome.error, new Date(now + delay)],
    );
  }

  /** Fenced by (lease owner, attempt): a replica that lost the lease changes nothing. */
  private async settle(row: Claimed, set: string, values: unknown[]): Promise<void> {
    const owner = `$${3 + values.length}`;
    await this.db
      .query(
        `UPDATE notifications SET ${set}, lease_owner = NULL, lease_expires_at = NULL WHERE notification_id = $1 AND attempts = $2 AND lease_owner = ${owner} AND status = 'sending'`,
        [row.notification_id, row.attempts, ...values, this.settings.replicaId],
      )
      .catch((err: unknown) =>
        this.logger.error(
          { err, notificationId: row.notification_id },
          'could not record a webhook outcome; it is retried when its lease runs out',
        ),
      );
  }
}
