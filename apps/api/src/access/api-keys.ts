import { isPlatformError, type Logger } from '@platform/service-kit';
import { TenantRole } from '@platform/contracts';
import type { CredentialCalls } from '../credential-calls.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';

/** Every API key starts with it (`plk_<id>_<secret>`); a JWT never does (docs/access.md#api-keys). */
const API_KEY_PREFIX = 'plk_';

/** Whether a bearer credential is an API key rather than a JWT. */
export function isApiKey(bearer: string): boolean {
  return bearer.startsWith(API_KEY_PREFIX);
}

/** Whose a verified key is. */
interface KeyIdentity {
  keyId: string;
  tenantId: string;
  role: TenantRole;
}

interface ApiKeyVerifierOptions {
  /** Longest a verified key is trusted without asking the credential service again (a revocation on any replica reaches this one over NATS sooner). */
  cacheMs: number;
  maxEntries: number;
  /** How often last uses are sent to the credential service (one call per interval, not one per request). */
  useFlushMs: number;
  logger: Pick<Logger, 'warn'>;
  now?: () => number;
}

/**
 * Verifies API keys with the credential service and remembers the answer for `cacheMs`, so a
 * server that sends its key with every request costs one gRPC call per interval. A revocation
 * (`forget`, on every replica from the NATS notice the revoking replica publishes) drops the key
 * at once, and an answer that was in flight while it arrived is not kept. Uses are collected and
 * sent as one batch per `useFlushMs`: `last used` costs no write per request.
 */
export class ApiKeyVerifier {
  private readonly cache = new Map<string, { identity: KeyIdentity; untilMs: number }>();
  /** Keys revoked lately, by id: a verification that started before the notice is not cached. */
  private readonly revoked = new Map<string, number>();
  private readonly uses = new Map<string, Date>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly calls: Pick<CredentialCalls, 'verifyKey' | 'recordKeyUse'>,
    private readonly options: ApiKeyVerifierOptions,
  ) {
    this.timer = setInterval(() => void this.flushUses(), options.useFlushMs);
    this.timer.unref();
  }

  async verify(key: string): Promise<KeyIdentity> {
    const now = this.now();
    const known = this.cache.get(key);
    if (known && known.untilMs > now && !this.revoked.has(known.identity.keyId)) {
      this.uses.set(known.identity.keyId, new Date(now));
      return known.identity;
    }
    this.cache.delete(key);
    const started = now;
    let answer: Awaited<ReturnType<CredentialCalls['verifyKey']>>;
    try {
      answer = await this.calls.verifyKey(key);
    } catch (err) {
      throw toAuthError(err);
    }
    const identity: KeyIdentity = {
      keyId: answer.keyId,
      tenantId: answer.tenantId,
      role: TenantRole.parse(answer.role),
    };
    const revokedAt = this.revoked.get(identity.keyId);
    if (revokedAt !== undefined && revokedAt >= started)
      throw new HttpError(401, ApiErrorCodes.API_KEY_REVOKED, 'the API key has been revoked');
    const expiresMs = answer.expiresAt?.getTime() ?? Infinity;
    const untilMs = Math.min(expiresMs, this.now() + this.options.cacheMs);
    if (this.options.maxEntries > 0 && untilMs > this.now()) {
      while (this.cache.size >= this.options.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, { identity, untilMs });
    }
    this.uses.set(identity.keyId, new Date(this.now()));
    return identity;
  }

  /** A key was revoked (here or on another replica): refuse it from now on without asking. */
  forget(keyId: string): void {
    const now = this.now();
    this.revoked.set(keyId, now);
    for (const [key, entry] of this.cache) if (entry.identity.keyId === keyId) this.cache.delete(key);
    // A revoked key is refused by the credential service anyway once nothing cached remains.
    for (const [id, at] of this.revoked) if (at + this.options.cacheMs < now) this.revoked.delete(id);
  }

  /** Sends the uses collected since the last flush (kept for the next one when the call fails). */
  async flushUses(): Promise<void> {
    if (this.uses.size === 0) return;
    const batch = [...this.uses].map(([keyId, usedAt]) => ({ keyId, usedAt }));
    this.uses.clear();
    try {
      await this.calls.recordKeyUse(batch);
    } catch (err) {
      for (const use of batch) if (!this.uses.has(use.keyId)) this.uses.set(use.keyId, use.usedAt);
      this.options.logger.warn({ err }, 'cannot record API key uses; retrying with the next batch');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flushUses();
  }

  private now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }
}

/** The credential service's refusal as the api's 401, or 503 AUTH_UNAVAILABLE when it cannot answer. */
function toAuthError(err: unknown): HttpError {
  if (isPlatformError(err) && err.kind === 'unauthenticated') {
    const code =
      err.code === ApiErrorCodes.API_KEY_REVOKED || err.code === ApiErrorCodes.API_KEY_EXPIRED
        ? err.code
        : ApiErrorCodes.INVALID_API_KEY;
    return new HttpError(401, code, err.message);
  }
  return new HttpError(
    503,
    ApiErrorCodes.AUTH_UNAVAILABLE,
    'the API key cannot be verified right now: the credential service is unavailable; try again later',
  );
}
