import { egressRefusalOf, redactUrlsIn, type EgressGuard } from '@platform/egress';
import { retryableStatus } from './retry-backoff.js';
import { signWebhook, WEBHOOK_HEADERS } from './webhook-signature.js';

/** One webhook to POST: the stable id (the same on every attempt), the exact body bytes and the secret that signs them. */
export interface WebhookMessage {
  id: string;
  url: string;
  body: string;
  secret: string;
  /** Headers of the delivery's own (a content type, the receiver's token); the signature's cannot be replaced. */
  headers?: Record<string, string>;
}

/** What one attempt came to: delivered, or failed (worth retrying or not) with an error safe to log and store. */
export type WebhookAttemptOutcome = { delivered: true } | { delivered: false; retry: boolean; error: string };

/**
 * A failed attempt as it is logged and stored: an egress refusal (final, unless the host did not
 * resolve) or a network error by its code, with every URL in the message redacted (no user name,
 * password or query value).
 */
function failedAttempt(err: unknown): { retry: boolean; error: string } {
  const refused = egressRefusalOf(err);
  if (refused) return { retry: refused.reason === 'unresolved', error: `EGRESS_REFUSED: ${refused.message}` };
  const cause = (err as Error).cause as { code?: unknown; message?: unknown } | undefined;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  return { retry: true, error: redactUrlsIn([(err as Error).message, detail].filter(Boolean).join(': ')) };
}

/**
 * One delivery attempt: POSTs the body signed (Standard Webhooks headers, the timestamp the
 * attempt's) through the egress guard, which vets the receiver's address again when the connection
 * opens, pins the connection to it and follows no redirect. A 2xx is delivered; 5xx, 429 and 408
 * (and network errors, timeouts) are worth retrying; any other answer is final.
 */
export async function attemptWebhook(
  egress: EgressGuard,
  message: WebhookMessage,
  nowMs: number,
  timeoutMs: number,
): Promise<WebhookAttemptOutcome> {
  try {
    const timestamp = Math.floor(nowMs / 1000);
    const response = await egress.fetch(message.url, {
      method: 'POST',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'content-type': 'application/json',
        ...message.headers,
        [WEBHOOK_HEADERS.id]: message.id,
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: signWebhook(message.secret, message.id, timestamp, message.body),
      },
      body: message.body,
    });
    await response.body?.cancel();
    return response.ok
      ? { delivered: true }
      : { delivered: false, retry: retryableStatus(response.status), error: `HTTP ${response.status}` };
  } catch (err) {
    return { delivered: false, ...failedAttempt(err) };
  }
}
