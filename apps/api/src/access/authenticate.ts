import type { FastifyRequest } from 'fastify';
import type { Principal, TokenVerifier } from '../auth.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';
import { actingPrincipal } from '../operator.js';
import { isApiKey, type ApiKeyVerifier } from './api-keys.js';

/** The header with which a key acts for one end user (docs/access.md#acting-for-a-user). */
const ACTING_USER_HEADER = 'platform-user';
/** An end user's id as a key names it: 1-200 printable characters, no spaces at either end. */
const ACTING_USER = /^[^\s\p{Cc}](?:[^\p{Cc}]{0,198}[^\s\p{Cc}])?$/u;

export interface AuthenticateOptions {
  verifier: TokenVerifier;
  /** Absent: the api accepts no API keys (no credential service configured). */
  keys: ApiKeyVerifier | undefined;
  operatorRole: string;
}

/**
 * Who calls: a JWT (verified; its tenant, subject and roles) or an API key (its tenant and role;
 * with `Platform-User`, acting for that end user), then an operator's `Platform-Tenant`.
 */
export async function authenticate(request: FastifyRequest, options: AuthenticateOptions): Promise<Principal> {
  const authorization = request.headers.authorization;
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  const actingUser = headerValue(request.headers[ACTING_USER_HEADER]);
  if (bearer === undefined || !isApiKey(bearer)) {
    const principal = await options.verifier.verify(authorization);
    if (actingUser !== undefined)
      throw new HttpError(
        403,
        ApiErrorCodes.FORBIDDEN,
        'only an API key may act for a user (Platform-User); a token speaks for its own subject',
      );
    return actingPrincipal(principal, request, options.operatorRole);
  }
  if (!options.keys)
    throw new HttpError(401, ApiErrorCodes.INVALID_API_KEY, 'this api accepts no API keys (no credential service)');
  const identity = await options.keys.verify(bearer);
  if (actingUser !== undefined && !ACTING_USER.test(actingUser))
    throw new HttpError(
      400,
      ApiErrorCodes.INVALID_ACTING_USER,
      'Platform-User must be an end user id: 1-200 characters, no control characters, no spaces at either end',
    );
  const principal: Principal = Object.freeze({
    tenantId: identity.tenantId,
    subject: actingUser ?? `key:${identity.keyId}`,
    role: identity.role,
    keyId: identity.keyId,
    ...(actingUser !== undefined ? { actingUser } : {}),
  });
  // A key is no operator: Platform-Tenant is refused (403) by the same check as for tokens.
  return actingPrincipal(principal, request, options.operatorRole);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
