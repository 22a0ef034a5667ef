import { TenantId } from '@platform/contracts';
import type { z } from 'zod';
import { errors } from './errors.js';

/**
 * Parses one field of a request with its schema; a value that does not fit is the caller's fault:
 * an `invalid_argument` error with `code`, naming the field (`what`, as the wire spells it) and
 * the schema's first complaint.
 */
export function parseOrReject<T>(schema: z.ZodType<T>, value: unknown, code: string, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw errors.invalidArgument(code, `${what}: ${result.error.issues[0]?.message ?? 'invalid'}`);
  return result.data;
}

/** The request's tenant id, checked (`INVALID_TENANT_ID` naming `tenant_id` when it is not one). */
export function tenantOf(request: { tenantId: string }): string {
  return parseOrReject(TenantId, request.tenantId, 'INVALID_TENANT_ID', 'tenant_id');
}
