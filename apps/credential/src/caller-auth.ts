import { createHash, timingSafeEqual } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';
import { CREDENTIAL_GRANT_AUDIENCE, CREDENTIAL_GRANT_ISSUER, CredentialGrantClaims } from '@platform/contracts';
import { PlatformError } from '@platform/service-kit';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet } from 'jose';
import { ErrorCodes } from './error-codes.js';

/** Signature algorithms accepted on grants: asymmetric only, so this service can verify but never mint. */
const GRANT_ALGORITHMS = ['EdDSA', 'ES256'];

export interface CallerAuthOptions {
  grantPublicKeys: string;
  platformTokens: readonly string[];
  clockToleranceSeconds: number;
}

/** Who is calling: a platform service with a token, or a tool call holding a grant. */
export type Caller = { kind: 'platform' } | { kind: 'grant'; claims: CredentialGrantClaims };

const denied = (code: string, message: string) => new PlatformError('permission_denied', code, message);
const unauthenticated = (code: string, message: string) => new PlatformError('unauthenticated', code, message);

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest();

/** Authenticates callers: verifies grants against the orchestrator's public keys, and platform tokens in constant time. */
export class CallerAuth {
  private readonly jwks: ReturnType<typeof createLocalJWKSet>;
  private readonly tokenDigests: Buffer[];

  constructor(private readonly options: CallerAuthOptions) {
    let set: JSONWebKeySet;
    try {
      set = JSON.parse(options.grantPublicKeys) as JSONWebKeySet;
    } catch {
      throw new Error('CREDENTIAL_GRANT_PUBLIC_KEYS is not valid JSON');
    }
    if (!Array.isArray(set.keys) || set.keys.length === 0)
      throw new Error('CREDENTIAL_GRANT_PUBLIC_KEYS must be a JWKS with at least one key');
    for (const key of set.keys) {
      if ('d' in key)
        throw new Error(
          `CREDENTIAL_GRANT_PUBLIC_KEYS key '${key.kid ?? '?'}' holds a private part; give this service public keys only`,
        );
    }
    this.jwks = createLocalJWKSet(set);
    this.tokenDigests = options.platformTokens.map(digest);
  }

  /** The grant's verified claims; expired, forged, or malformed grants are UNAUTHENTICATED. */
  async verifyGrant(grant: string): Promise<CredentialGrantClaims> {
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(grant, this.jwks, {
        issuer: CREDENTIAL_GRANT_ISSUER,
        audience: CREDENTIAL_GRANT_AUDIENCE,
        algorithms: GRANT_ALGORITHMS,
        clockTolerance: this.options.clockToleranceSeconds,
        requiredClaims: ['exp', 'iat'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired)
        throw unauthenticated(ErrorCodes.GRANT_EXPIRED, 'the credential grant has expired');
      throw unauthenticated(
        ErrorCodes.GRANT_INVALID,
        `the credential grant is not valid: ${(err as { code?: string }).code ?? 'unverifiable'}`,
      );
    }
    const claims = CredentialGrantClaims.safeParse(payload);
    if (!claims.success) throw unauthenticated(ErrorCodes.GRANT_INVALID, 'the credential grant lacks required claims');
    return claims.data;
  }

  /**
   * Identifies the caller of one request: a grant in the request wins; otherwise the metadata must
   * carry a platform token. Nothing else gets in.
   */
  async authenticate(grant: string, metadata: Metadata): Promise<Caller> {
    if (grant) return { kind: 'grant', claims: await this.verifyGrant(grant) };
    const header = metadata.get('authorization')[0];
    const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    if (token && this.isPlatformToken(token)) return { kind: 'platform' };
    throw unauthenticated(ErrorCodes.CALLER_UNAUTHENTICATED, 'send a credential grant or a platform token');
  }

  private isPlatformToken(token: string): boolean {
    const presented = digest(token);
    let match = false;
    for (const known of this.tokenDigests) match = timingSafeEqual(presented, known) || match;
    return match;
  }
}

/** A grant reaches only its own tenant, call and services, and only reads and saves. */
export function checkGrantScope(
  claims: CredentialGrantClaims,
  request: { tenantId: string; service: string; callId: string },
): void {
  if (claims.tid !== request.tenantId)
    throw denied(ErrorCodes.GRANT_TENANT_MISMATCH, 'the credential grant is for another tenant');
  if (claims.call !== request.callId)
    throw denied(ErrorCodes.GRANT_CALL_MISMATCH, 'the credential grant is for another tool call');
  if (!claims.svc.includes(request.service))
    throw denied(ErrorCodes.SERVICE_NOT_GRANTED, `the tool call was not granted service '${request.service}'`);
}

export function grantNotAllowed(method: string): PlatformError {
  return denied(
    ErrorCodes.GRANT_NOT_ALLOWED,
    `${method} is for platform callers; a credential grant cannot ${method === 'ListCredentials' ? 'list' : 'use it'}`,
  );
}
