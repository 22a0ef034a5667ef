export { signWebhook, verifyWebhook, newWebhookSecret, WEBHOOK_HEADERS } from './webhook-signature.js';
export { retryDelayMs, retryableStatus, type WebhookRetryPolicy } from './retry-backoff.js';
export { attemptWebhook, type WebhookMessage, type WebhookAttemptOutcome } from './webhook-delivery.js';
export {
  PgWebhookOutbox,
  type ClaimedWebhook,
  type OutboxTableOptions,
  type WebhookOutboxStore,
  type WebhookSettlement,
} from './outbox-table.js';
export { WebhookDispatcher, type WebhookDispatcherSettings } from './webhook-dispatcher.js';
