import { TenantId } from '@platform/contracts';
import { errors as joseErrors, jwtVerify } from 'jose';
import { HttpError } from './http-errors.js';

/** Who is calling, as established from the verified token. */
export interface Principal {
  tenantId: string;
  subject: string | undefined;
}

/**
 * Verifies `Authorization: Bearer <JWT>` (HS256) and derives the tenant: the `tenant` claim, or
 * else `sub`. Every failure is a 401 with a code that says what was wrong, never which secret.
 */
export class TokenVerifier {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  async verify(authorization: string | undefined): Promise<Principal> {
    if (!authorization) throw new HttpError(401, 'MISSING_TOKEN', 'send an Authorization: Bearer <token> header');
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match) throw new HttpError(401, 'INVALID_TOKEN', 'the Authorization header must be "Bearer <token>"');
    let payload;
    try {
      ({ payload } = await jwtVerify(match[1]!, this.key, { algorithms: ['HS256'] }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new HttpError(401, 'TOKEN_EXPIRED', 'the token has expired');
      throw new HttpError(401, 'INVALID_TOKEN', 'the token is not valid');
    }
    const claim = typeof payload['tenant'] === 'string' ? payload['tenant'] : payload.sub;
    const tenant = TenantId.safeParse(claim);
    if (!tenant.success) throw new HttpError(401, 'INVALID_TOKEN', 'the token names no valid tenant (claim "tenant" or "sub")');
    return { tenantId: tenant.data, subject: payload.sub };
  }
}
