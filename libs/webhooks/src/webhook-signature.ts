import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures, after the Standard Webhooks scheme: the signed content is
 * `<webhook-id>.<webhook-timestamp>.<body>`, the signature HMAC-SHA256 keyed with the secret's
 * bytes as written (the whole `whsec_…` string, UTF-8),
 * sent as `webhook-signature: v1,<base64>`. The id is stable across retries (dedupe on it), the
 * timestamp (Unix seconds) is the attempt's (refuse old ones to stop replays).
 */
export const WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** What a receiver does: true when one of the header's signatures matches and the timestamp is recent. */
export function verifyWebhook(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, headers.id, timestamp, body));
  return headers.signature.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** A webhook signing secret: `whsec_` and 192 random bits (base64url). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}
