import { errors, PlatformError } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';
import type { IdempotencyClaim, RunRecord } from '../journal/run-types.js';
import type { IdempotencyKeys } from './idempotency-keys.js';

/** What a tenant may choose as an Idempotency-Key: 1 to 255 characters, URL- and header-safe. */
const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9\-_.:~+/=]{1,255}$/;
const FINGERPRINT_PATTERN = /^[0-9a-f]{64}$/;

/** The message's key as a claim its run records, or undefined when it has none (refused when malformed). */
export function idempotencyClaimOf(
  request: { idempotencyKey?: string | undefined; requestFingerprint?: string | undefined },
  ttlMs: number,
): IdempotencyClaim | undefined {
  const key = request.idempotencyKey ?? '';
  if (!key) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key))
    throw errors.invalidArgument(
      ErrorCodes.INVALID_IDEMPOTENCY_KEY,
      'idempotency_key must be 1 to 255 characters of A-Z a-z 0-9 - _ . : ~ + / =',
      { details: { field: 'Idempotency-Key' } },
    );
  const fingerprint = request.requestFingerprint ?? '';
  if (!FINGERPRINT_PATTERN.test(fingerprint))
    throw errors.invalidArgument(
      ErrorCodes.INVALID_IDEMPOTENCY_KEY,
      'request_fingerprint must be the SHA-256 of the request in hex (64 digits) when idempotency_key is set',
    );
  return { key, fingerprint, ttlMs };
}

/**
 * The run a tenant's live key started, when this message repeats it: the same fingerprint in the
 * same conversation. Undefined when the key names no run (new, or expired). A key sent with a
 * different request is refused: answering it with the first request's run would be answering
 * another question.
 */
export async function runOfKey(
  deps: {
    keys: Pick<IdempotencyKeys, 'find'>;
    runs: { get(tenantId: string, runId: string): Promise<RunRecord | undefined> };
  },
  scope: { tenantId: string; conversationId: string },
  claim: Pick<IdempotencyClaim, 'key' | 'fingerprint'>,
): Promise<RunRecord | undefined> {
  const record = await deps.keys.find(scope.tenantId, claim.key);
  if (!record) return undefined;
  const reused = new PlatformError(
    'failed_precondition',
    ErrorCodes.IDEMPOTENCY_KEY_REUSED,
    `Idempotency-Key '${claim.key}' was sent with a different request (run '${record.runId}'); use a new key for a new message`,
    { details: { field: 'Idempotency-Key', runId: record.runId } },
  );
  if (record.fingerprint !== claim.fingerprint) throw reused;
  // Recorded by the statement that recorded the run, so the run is there.
  const run = await deps.runs.get(scope.tenantId, record.runId);
  if (!run) return undefined;
  if (run.conversationId !== scope.conversationId) throw reused;
  return run;
}
