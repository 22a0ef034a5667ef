import { roleAtLeast, type TenantRole } from '@platform/contracts';
import type { Principal } from '../auth.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';

/** 403 FORBIDDEN_ROLE naming the role an operation needs, unless the caller holds it (or more). */
export function requireRole(principal: Principal, required: TenantRole, operationId: string): void {
  if (roleAtLeast(principal.role, required)) return;
  throw new HttpError(
    403,
    ApiErrorCodes.FORBIDDEN_ROLE,
    `${operationId} needs the tenant role "${required}" or above; the caller has "${principal.role}" (docs/access.md#roles)`,
    { requiredRole: required, role: principal.role },
  );
}
