import { redactUrl, type EgressGuard } from '@platform/egress';
import type { Logger } from '@platform/service-kit';
import type { ClaimedWebhook, WebhookOutboxStore } from './outbox-table.js';
import { retryDelayMs, type WebhookRetryPolicy } from './retry-backoff.js';
import { attemptWebhook } from './webhook-delivery.js';

/** The dispatcher's tuning (one object, defaults are the services' config). */
export interface WebhookDispatcherSettings extends WebhookRetryPolicy {
  /** Names this replica's leases. */
  replicaId: string;
  /** Longest one POST may take. */
  timeoutMs: number;
  /** Deliveries claimed per round. */
  batchSize: number;
  /** How long a claimed delivery is this replica's (longer than `timeoutMs`). */
  leaseMs: number;
}

/**
 * Delivers webhooks from an outbox: claims due ones, POSTs each signed (see {@link attemptWebhook})
 * and records delivered / retry with exponential backoff / failed. The `webhook-id` is the same on
 * every attempt, so receivers dedupe on it. Settling is fenced by (lease owner, attempt): a replica
 * that lost the lease changes nothing.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly outbox: WebhookOutboxStore,
    private readonly now: () => number,
    private readonly egress: EgressGuard,
    private readonly settings: WebhookDispatcherSettings,
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
    const now = this.now();
    const { replicaId, batchSize, leaseMs } = this.settings;
    const claimed = await this.outbox.claimDue(now, batchSize, replicaId, now + leaseMs);
    await Promise.all(claimed.map((row) => this.deliver(row)));
    return claimed.length;
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

  private async deliver(row: ClaimedWebhook): Promise<void> {
    const outcome = await attemptWebhook(this.egress, row, this.now(), this.settings.timeoutMs);
    const now = this.now();
    if (outcome.delivered) return this.settle(row, { status: 'delivered', atMs: now });
    const final = !outcome.retry || row.attempts >= this.settings.maxAttempts;
    this.logger.warn(
      { webhookId: row.id, url: redactUrl(row.url), attempt: row.attempts, error: outcome.error, final },
      'webhook delivery failed',
    );
    await this.settle(
      row,
      final
        ? { status: 'failed', error: outcome.error }
        : { status: 'pending', error: outcome.error, dueAtMs: now + retryDelayMs(this.settings, row.attempts) },
    );
  }

  private async settle(row: ClaimedWebhook, settlement: Parameters<WebhookOutboxStore['settle']>[1]): Promise<void> {
    await this.outbox
      .settle(row, settlement, this.settings.replicaId)
      .catch((err: unknown) =>
        this.logger.error(
          { err, webhookId: row.id },
          'could not record a webhook outcome; it is retried when its lease runs out',
        ),
      );
  }
}
