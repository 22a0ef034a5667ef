export { signWebhook, verifyWebhook, newWebhookSecret, WEBHOOK_HEADERS } from './webhook-signature.js';
export { retryDelayMs } from './retry-backoff.js';
export { attemptWebhook } from './webhook-delivery.js';
export { PgWebhookOutbox, type WebhookOutboxStore } from './outbox-table.js';
export { WebhookDispatcher } from './webhook-dispatcher.js';
