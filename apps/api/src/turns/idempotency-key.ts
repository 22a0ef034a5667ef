import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';

/** What a client may send as an Idempotency-Key: 1 to 255 characters, e.g. a UUID or a ULID. */
const KEY_PATTERN = /^[A-Za-z0-9\-_.:~+/=]{1,255}$/;

/** The request header as the operations document it. */
export const IdempotencyKeyHeader = z.string().regex(KEY_PATTERN).optional().meta({
  description:
    "Makes the send safe to retry (docs/conversations.md, \"Idempotent sends\"): for 24 h a repeat with this key is answered with the first send's run (waited for while it runs, streamed when asked), never a second turn; the key with a different body is 422 IDEMPOTENCY_KEY_REUSED. 1 to 255 characters of `A-Z a-z 0-9 - _ . : ~ + / =` (400 INVALID_IDEMPOTENCY_KEY otherwise). Keys are the tenant's own: another tenant's same key is another key.",
});

/** The answers a keyed send may have besides the turn's own. */
export const IDEMPOTENCY_ERRORS = { 400: ['INVALID_IDEMPOTENCY_KEY'], 422: ['IDEMPOTENCY_KEY_REUSED'] } as const;

/** The request's Idempotency-Key, or undefined without one; a malformed one is refused (400). */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header.join(',') : header;
  if (!KEY_PATTERN.test(key))
    throw new HttpError(
      400,
      ApiErrorCodes.INVALID_IDEMPOTENCY_KEY,
      'Idempotency-Key must be 1 to 255 characters of A-Z a-z 0-9 - _ . : ~ + / = (sent once)',
      { field: 'Idempotency-Key' },
    );
  return key;
}

/** JSON with every object's keys sorted, so two encodings of one body give one text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The SHA-256 (hex) of what a keyed send asks: its operation, the conversation it goes to and
 * its parsed body, whatever the order of the body's fields. A repeat with the same key must
 * match it; how the answer is delivered (`Accept`, the facade's `stream`) is not part of it.
 */
export function requestFingerprint(operation: string, conversationId: string, body: unknown): string {
  return createHash('sha256').update(canonicalJson({ operation, conversationId, body })).digest('hex');
}

/**
 * The fingerprint of a keyed OpenAI-style request: its body but the fields that only say how the
 * answer is delivered (`stream`, `stream_options`), and the conversation it names.
 */
export function askedFingerprint(
  operation: string,
  body: Record<string, unknown>,
  deliveryFields: readonly string[],
  conversation: unknown,
): string {
  const asked = Object.fromEntries(Object.entries(body).filter(([field]) => !deliveryFields.includes(field)));
  return requestFingerprint(operation, typeof conversation === 'string' ? conversation : '', asked);
}

/** The fields a keyed turn carries to the orchestrator (none without a key). */
export function idempotencyFields(
  key: string | undefined,
  fingerprint: () => string,
): { idempotencyKey?: string; requestFingerprint?: string } {
  return key ? { idempotencyKey: key, requestFingerprint: fingerprint() } : {};
}

/**
 * The conversation of a keyed facade request that names none (no `x-conversation-id`): made from
 * the key and the request, so a retry lands in the conversation of the first send (a random one
 * would make every retry another request).
 */
export function keyedConversationId(key: string, fingerprint: string): string {
  const h = createHash('sha256').update(`${key}\u0000${fingerprint}`).digest('hex');
  return `chat-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
