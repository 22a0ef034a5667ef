import { highestTenantRole, TenantId, type TenantRole } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import { HttpError } from './http-errors.js';
import { TokenCache } from './token-cache.js';
import { ApiErrorCodes } from './error-codes.js';
import { NamedError } from '@platform/contracts';

/** Who is calling, as established from the verified token. */
export interface Principal {
  tenantId: string;
  subject: string | undefined;
  /** The caller's plan or tier (claim `tier`), when the token carries one. */
  tier?: string;
  /** Roles the token grants (claim `roles`, an array of strings), e.g. `platform-operator`. */
  roles?: readonly string[];
  /**
   * The caller's role within its tenant (docs/access.md): the highest tenant role its `roles`
   * claim names, else the default (AUTH_DEFAULT_TENANT_ROLE, `member`); a key's own role.
   */
  role: TenantRole;
  /** The API key the caller authenticated with (its id), when it used one. */
  keyId?: string;
  /** Set when an operator reads another tenant's data (`Platform-Tenant`, GET only): it sees all of it. */
  operatorRead?: boolean;
  /** The end user a key acts for (the `Platform-User` header); `subject` is then that user. */
  actingUser?: string;
}

/** Algorithms verified with the shared secret (`AUTH_JWT_SECRET`). */
const SECRET_ALGORITHMS = ['HS256'] as const;
/** Algorithms verified with a public key of the key set (`AUTH_JWKS_URL`). */
const KEY_SET_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const;

/** Letters, digits, "-" and "_", 1 to 32 characters. */
const TIER_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5;
/** Longest a token may live, `exp` minus `iat` (or minus now without `iat`): 24 hours. */
const DEFAULT_MAX_TOKEN_LIFETIME_SECONDS = 24 * 60 * 60;
const ROLE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

export interface TokenVerifierOptions {
  /** HS256 shared secret; tokens with `alg: HS256` are verified with it. */
  secret?: string | undefined;
  /** URL of a JSON Web Key Set; tokens with `alg` RS*, PS* or ES* are verified with its keys. */
  jwksUrl?: string | URL | undefined;
  /** When set, the `iss` claim must equal it. */
  issuer?: string | undefined;
  /** When set, the `aud` claim must contain at least one of these. */
  audience?: string | readonly string[] | undefined;
  /** Leeway for `exp`, `nbf` and a future `iat`, in seconds (default 5). */
  clockToleranceSeconds?: number | undefined;
  /**
   * Longest lifetime accepted, in seconds (default 24 h): `exp` minus `iat`, or minus now for a
   * token without `iat`. Every token must carry `exp`.
   */
  maxTokenLifetimeSeconds?: number | undefined;
  /** Tuning of the key set fetches (jose's defaults: 5 s timeout, 30 s cooldown, 10 min max age). */
  jwks?: { timeoutMs?: number; cooldownMs?: number; cacheMaxAgeMs?: number } | undefined;
  /**
   * Verified tokens are remembered (default: 10,000 tokens, each for at most 60 s and never past its
   * `exp`), so a client's repeated token is not verified again on every request. `maxEntries: 0` turns it off.
   */
  cache?: { maxEntries: number; maxAgeMs: number } | undefined;
  /** Receives a warning when the key set cannot be fetched (the client only sees 503 AUTH_UNAVAILABLE). */
  logger?: Pick<Logger, 'warn'> | undefined;
  /** The tenant role of a token whose `roles` claim names none (default `member`, AUTH_DEFAULT_TENANT_ROLE). */
  defaultRole?: TenantRole | undefined;
}

/** The key set could not be fetched or used: the identity provider's side, not the token's. */
class KeySetUnavailable extends NamedError {
  constructor(cause: unknown) {
    super('the JSON Web Key Set is unavailable', { cause });
  }
}

const isSecretAlgorithm = (alg: string): boolean => (SECRET_ALGORITHMS as readonly string[]).includes(alg);
const isKeySetAlgorithm = (alg: string): boolean => (KEY_SET_ALGORITHMS as readonly string[]).includes(alg);

/**
 * Verifies `Authorization: Bearer <JWT>` and derives the tenant: the `tenant` claim, or else `sub`.
 *
 * Tokens are HS256 (verified with the shared secret) or RS/PS/ES (verified with a key of the JWKS,
 * chosen by `kid`); the token's `alg` header picks the key source and nothing else is accepted, so
 * `alg: none` and HS tokens "signed" with a public key never pass. Every token failure is a 401 with
 * a code that says what was wrong, never which secret; an unreachable key set is a 503
 * `AUTH_UNAVAILABLE`.
 */
export class TokenVerifier {
  private readonly secret: Uint8Array | undefined;
  private readonly keySet: JWTVerifyGetKey | undefined;
  private readonly claimOptions: Omit<JWTVerifyOptions, 'algorithms'>;
  private readonly accepted: readonly string[];
  private readonly logger: Pick<Logger, 'warn'> | undefined;
  private readonly verified: TokenCache<Principal>;
  private readonly clockToleranceSeconds: number;
  private readonly maxLifetimeSeconds: number;
  private readonly defaultRole: TenantRole;

  /** `options` may be just the HS256 secret. */
  constructor(options: string | TokenVerifierOptions) {
    const opts: TokenVerifierOptions = typeof options === 'string' ? { secret: options } : options;
    if (!opts.secret && !opts.jwksUrl) throw new Error('TokenVerifier needs an HS256 secret or a JWKS URL (or both)');
    this.logger = opts.logger;
    this.defaultRole = opts.defaultRole ?? 'member';
    this.secret = opts.secret ? new TextEncoder().encode(opts.secret) : undefined;
    this.keySet = opts.jwksUrl ? this.remoteKeySet(new URL(opts.jwksUrl), opts.jwks ?? {}) : undefined;
    const audience = typeof opts.audience === 'string' ? [opts.audience] : opts.audience ? [...opts.audience] : [];
    this.clockToleranceSeconds = opts.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
    this.maxLifetimeSeconds = opts.maxTokenLifetimeSeconds ?? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS;
    this.claimOptions = {
      clockTolerance: this.clockToleranceSeconds,
      requiredClaims: ['exp'],
      ...(opts.issuer ? { issuer: opts.issuer } : {}),
      ...(audience.length > 0 ? { audience } : {}),
    };
    this.verified = new TokenCache({
      maxEntries: opts.cache?.maxEntries ?? 10_000,
      maxAgeMs: opts.cache?.maxAgeMs ?? 60_000,
      clockToleranceSeconds: opts.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
    });
    this.accepted = [...(this.secret ? SECRET_ALGORITHMS : []), ...(this.keySet ? KEY_SET_ALGORITHMS : [])];
  }

  async verify(authorization: string | undefined): Promise<Principal> {
    if (!authorization)
      throw new HttpError(401, ApiErrorCodes.MISSING_TOKEN, 'send an Authorization: Bearer <token> header');
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match)
      throw new HttpError(401, ApiErrorCodes.INVALID_TOKEN, 'the Authorization header must be "Bearer <token>"');
    const token = match[1]!;
    const known = this.verified.get(token);
    if (known) return known;
    const payload = await this.verifiedPayload(token);
    this.checkLifetime(payload);

    // A `tenant` claim that is present decides, valid or not: a malformed one never falls back to `sub`.
    const named = payload['tenant'] !== undefined;
    const tenant = TenantId.safeParse(named ? payload['tenant'] : payload.sub);
    if (!tenant.success) {
      throw new HttpError(
        401,
        ApiErrorCodes.INVALID_TOKEN,
        named
          ? 'the token\'s "tenant" claim is not a valid tenant id (a string of 1-128 letters, digits, ".", "_", ":" or "-")'
          : 'the token names no valid tenant (claim "tenant" or "sub")',
      );
    }
    const tier = payload['tier'];
    if (tier !== undefined && (typeof tier !== 'string' || !TIER_PATTERN.test(tier))) {
      throw new HttpError(
        401,
        ApiErrorCodes.INVALID_TOKEN,
        'the token\'s "tier" claim must be 1-32 letters, digits, "-" or "_"',
      );
    }
    const roles = payload['roles'] ?? [];
    if (
      !Array.isArray(roles) ||
      roles.length > 32 ||
      !roles.every((role) => typeof role === 'string' && ROLE_PATTERN.test(role))
    ) {
      throw new HttpError(
        401,
        ApiErrorCodes.INVALID_TOKEN,
        'the token\'s "roles" claim must be an array of role names (1-64 letters, digits, ".", ":", "-" or "_")',
      );
    }
    const principal: Principal = Object.freeze({
      tenantId: tenant.data,
      subject: payload.sub,
      ...(tier !== undefined ? { tier } : {}),
      ...(roles.length > 0 ? { roles: Object.freeze([...(roles as string[])]) } : {}),
      role: highestTenantRole(roles as string[]) ?? this.defaultRole,
    });
    this.verified.set(token, principal, typeof payload.exp === 'number' ? payload.exp : undefined);
    return principal;
  }

  /**
   * Tokens must expire, within the configured lifetime: `exp` minus `iat` (or minus now, for a
   * token without `iat`) at most the maximum, and `iat` not in the future beyond the clock leeway.
   * (jose has already required `exp` and checked both are numbers.)
   */
  private checkLifetime(payload: JWTPayload): void {
    const now = Math.floor(Date.now() / 1000);
    const { exp, iat } = payload as { exp: number; iat?: number };
    if (iat !== undefined && iat > now + this.clockToleranceSeconds) {
      throw new HttpError(
        401,
        ApiErrorCodes.TOKEN_ISSUED_IN_FUTURE,
        `the token's "iat" claim is ${Math.round(iat - now)} s in the future (at most ${this.clockToleranceSeconds} s of clock skew is accepted)`,
      );
    }
    const lifetime = exp - (iat ?? now);
    if (lifetime > this.maxLifetimeSeconds) {
      throw new HttpError(
        401,
        ApiErrorCodes.TOKEN_LIFETIME_TOO_LONG,
        `the token lives ${formatSeconds(lifetime)} ("exp" minus ${iat !== undefined ? '"iat"' : 'now'}); at most ${formatSeconds(this.maxLifetimeSeconds)} is accepted`,
      );
    }
  }

  /** Checks signature and registered claims; the `alg` header decides which key source is used. */
  private async verifiedPayload(token: string): Promise<JWTPayload> {
    let alg: unknown;
    try {
      ({ alg } = decodeProtectedHeader(token));
    } catch {
      throw new HttpError(401, ApiErrorCodes.INVALID_TOKEN, 'the token is not a well-formed JWT');
    }
    try {
      if (typeof alg === 'string' && isSecretAlgorithm(alg) && this.secret) {
        return (await jwtVerify(token, this.secret, { ...this.claimOptions, algorithms: [...SECRET_ALGORITHMS] }))
          .payload;
      }
      if (typeof alg === 'string' && isKeySetAlgorithm(alg) && this.keySet) {
        return await this.verifyWithKeySet(token, this.keySet);
      }
    } catch (err) {
      throw this.toHttpError(err);
    }
    throw new HttpError(
      401,
      ApiErrorCodes.INVALID_TOKEN,
      `the token's signing algorithm is not accepted (accepted: ${this.accepted.join(', ')})`,
    );
  }

  private async verifyWithKeySet(token: string, keySet: JWTVerifyGetKey): Promise<JWTPayload> {
    const options = { ...this.claimOptions, algorithms: [...KEY_SET_ALGORITHMS] };
    try {
      return (await jwtVerify(token, keySet, options)).payload;
    } catch (err) {
      // Several keys fit the header (no `kid`, or a reused one): try each, as jose documents.
      if (!(err instanceof joseErrors.JWKSMultipleMatchingKeys)) throw err;
      for await (const key of err) {
        try {
          return (await jwtVerify(token, key, options)).payload;
        } catch (inner) {
          if (inner instanceof joseErrors.JWSSignatureVerificationFailed) continue;
          throw inner;
        }
      }
      throw new joseErrors.JWSSignatureVerificationFailed();
    }
  }

  /**
   * jose's remote key set (caches keys, refetches on an unknown `kid` after a cooldown), with every
   * failure that is not about the token's `kid` turned into {@link KeySetUnavailable}.
   */
  private remoteKeySet(url: URL, tuning: NonNullable<TokenVerifierOptions['jwks']>): JWTVerifyGetKey {
    const remote = createRemoteJWKSet(url, {
      ...(tuning.timeoutMs !== undefined ? { timeoutDuration: tuning.timeoutMs } : {}),
      ...(tuning.cooldownMs !== undefined ? { cooldownDuration: tuning.cooldownMs } : {}),
      ...(tuning.cacheMaxAgeMs !== undefined ? { cacheMaxAge: tuning.cacheMaxAgeMs } : {}),
    });
    return async (header, token) => {
      try {
        return await remote(header, token);
      } catch (err) {
        if (err instanceof joseErrors.JWKSNoMatchingKey || err instanceof joseErrors.JWKSMultipleMatchingKeys)
          throw err;
        this.logger?.warn({ err, jwksUrl: url.origin + url.pathname }, 'cannot fetch the JSON Web Key Set');
        throw new KeySetUnavailable(err);
      }
    };
  }

  private toHttpError(err: unknown): HttpError {
    if (err instanceof HttpError) return err;
    if (err instanceof KeySetUnavailable) {
      return new HttpError(
        503,
        ApiErrorCodes.AUTH_UNAVAILABLE,
        'the token cannot be verified right now: the signing keys are unavailable; try again later',
      );
    }
    if (err instanceof joseErrors.JWTExpired)
      return new HttpError(401, ApiErrorCodes.TOKEN_EXPIRED, 'the token has expired');
    if (err instanceof joseErrors.JWTClaimValidationFailed) {
      const missing = err.reason === 'missing';
      switch (err.claim) {
        case 'iss':
          return new HttpError(
            401,
            ApiErrorCodes.INVALID_ISSUER,
            missing ? 'the token has no "iss" claim' : 'the token\'s "iss" claim is not the accepted issuer',
          );
        case 'aud':
          return new HttpError(
            401,
            ApiErrorCodes.INVALID_AUDIENCE,
            missing ? 'the token has no "aud" claim' : 'the token\'s "aud" claim names none of the accepted audiences',
          );
        case 'nbf':
          return new HttpError(401, ApiErrorCodes.INVALID_TOKEN, 'the token is not valid yet ("nbf" is in the future)');
        case 'exp':
          if (missing)
            return new HttpError(
              401,
              ApiErrorCodes.TOKEN_WITHOUT_EXPIRY,
              'the token has no "exp" claim: every token must expire',
            );
          return new HttpError(401, ApiErrorCodes.INVALID_TOKEN, 'the token\'s "exp" claim is not valid');
        case 'iat':
          return new HttpError(401, ApiErrorCodes.INVALID_TOKEN, `the token's "${err.claim}" claim is not valid`);
        default:
          return new HttpError(401, ApiErrorCodes.INVALID_TOKEN, "the token's claims are not valid");
      }
    }
    if (err instanceof joseErrors.JWKSNoMatchingKey) {
      return new HttpError(
        401,
        ApiErrorCodes.UNKNOWN_SIGNING_KEY,
        'no key of the signing key set matches the token (header "kid" and "alg")',
      );
    }
    if (err instanceof joseErrors.JWSSignatureVerificationFailed)
      return new HttpError(401, ApiErrorCodes.INVALID_TOKEN, "the token's signature is not valid");
    return new HttpError(401, ApiErrorCodes.INVALID_TOKEN, 'the token is not valid');
  }
}

function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds > 1e12) return 'forever';
  return seconds % 3600 === 0 ? `${seconds / 3600} h` : `${Math.round(seconds)} s`;
}
