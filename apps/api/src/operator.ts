import type { FastifyRequest } from 'fastify';
import { TenantId } from '@platform/contracts';
import type { Principal } from './auth.js';
import { HttpError } from './http-errors.js';
import { principalOf } from './principal.js';
import { ApiErrorCodes } from './error-codes.js';

/** The header with which an operator reads another tenant's data (read-only requests only). */
const TENANT_HEADER = 'platform-tenant';

/** Whether the verified caller holds the operator role. */
function isOperator(principal: Principal, operatorRole: string): boolean {
  return principal.roles?.includes(operatorRole) ?? false;
}

/** The caller, who must be an operator (403 FORBIDDEN otherwise). */
export function requireOperator(request: FastifyRequest, operatorRole: string): Principal {
  const principal = principalOf(request);
  if (!isOperator(principal, operatorRole))
    throw new HttpError(
      403,
      'FORBIDDEN',
      `this route is for operators: the token needs the role "${operatorRole}" in its "roles" claim`,
    );
  return principal;
}

/**
 * Applies the `Platform-Tenant` header: an operator's GET or HEAD request then reads that tenant's
 * data (runs, approvals, tasks, tools). Anyone else sending it, or an operator sending it on a
 * request that changes something, gets 403: operators inspect, they do not act as users.
 */
export function actingPrincipal(principal: Principal, request: FastifyRequest, operatorRole: string): Principal {
  const header = request.headers[TENANT_HEADER];
  if (header === undefined) return principal;
  if (!isOperator(principal, operatorRole))
    throw new HttpError(403, 'FORBIDDEN', `only operators (role "${operatorRole}") may send ${TENANT_HEADER}`);
  if (request.method !== 'GET' && request.method !== 'HEAD')
    throw new HttpError(403, 'FORBIDDEN', `${TENANT_HEADER} is accepted on read-only (GET) requests only`);
  const tenant = TenantId.safeParse(Array.isArray(header) ? header[0] : header);
  if (!tenant.success)
    throw new HttpError(400, ApiErrorCodes.INVALID_TENANT, `${TENANT_HEADER} is not a valid tenant id`);
  request.log.info({ operator: principal.subject, tenant: tenant.data, url: request.url }, 'operator read');
  // In another tenant an operator reads, with the rights of a viewer (docs/access.md).
  return Object.freeze({ ...principal, tenantId: tenant.data, role: 'viewer', operatorRead: true });
}
