import { z } from 'zod';
import type { CredentialCalls } from '../credential-calls.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';
import { OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';

export interface AuditRoutesOptions {
  credentials: CredentialCalls | undefined;
}

const AuditQuery = z
  .object({
    before: z.coerce.number().int().positive().optional(),
    limit: z.coerce.number().int().min(1).max(1_000).optional(),
  })
  .strict();

const AdminAction = z
  .object({
    id: z.number().int(),
    operation: z.string().meta({ description: 'The operationId, e.g. createApiKey.' }),
    method: z.string(),
    resource: z.string().meta({ description: 'What was written, from the path (e.g. `keyId=…`); never a secret.' }),
    status: z.number().int(),
    role: z.string().meta({ description: 'The tenant role the caller acted with.' }),
    subject: z.string().meta({ description: "The token's subject; for a key `key:<keyId>`." }),
    keyId: z.string().nullable(),
    actingUser: z.string().nullable().meta({ description: 'The end user a key acted for (`Platform-User`).' }),
    requestId: z.string(),
    at: OptionalTimestamp,
  })
  .meta({ id: 'AdminAction' });

export const auditOperations = {
  listAdminActions: defineOperation({
    method: 'GET',
    path: '/v1/audit',
    operationId: 'listAdminActions',
    summary: 'The audit of administrative actions, newest first',
    description:
      'Every successful write of an operation that needs the developer or admin role (docs/access.md#audit).',
    tags: ['access'],
    access: 'tenant',
    role: 'admin',
    query: AuditQuery,
    responses: {
      200: {
        description: 'A page of actions.',
        body: z.object({ actions: z.array(AdminAction), nextBefore: z.number().int().nullable() }),
        examples: {
          page: {
            actions: [
              {
                id: 3,
                operation: 'revokeApiKey',
                method: 'DELETE',
                resource: 'keyId=3f9c2a7b1d4e5f60',
                status: 200,
                role: 'admin',
                subject: 'alice',
                keyId: null,
                actingUser: null,
                requestId: 'req-1',
                at: '2026-06-01T09:30:00.000Z',
              },
            ],
            nextBefore: null,
          },
        },
      },
    },
    errors: { 503: ['CREDENTIALS_UNAVAILABLE', 'UNAVAILABLE'] },
  }),
};

const DEFAULT_PAGE = 100;

/** GET /v1/audit: the tenant's administrative actions, read from where they are kept (the credential service). */
export function registerAuditRoutes(router: OperationRouter, options: AuditRoutesOptions): void {
  router.add(auditOperations.listAdminActions, async ({ query, request }) => {
    if (!options.credentials)
      throw new HttpError(
        503,
        ApiErrorCodes.CREDENTIALS_UNAVAILABLE,
        'this deployment has no credential service configured',
      );
    const limit = query.limit ?? DEFAULT_PAGE;
    const { actions } = await options.credentials.listAdminActions({
      tenantId: principalOf(request).tenantId,
      beforeId: query.before ?? 0,
      limit,
    });
    return {
      status: 200,
      body: {
        actions: actions.map((a) => ({
          id: Number(a.id),
          operation: a.operation,
          method: a.method,
          resource: a.resource,
          status: a.status,
          role: a.role,
          subject: a.subject,
          keyId: a.keyId || null,
          actingUser: a.actingUser || null,
          requestId: a.requestId,
          at: a.at?.toISOString() ?? null,
        })),
        nextBefore: actions.length === limit ? Number(actions.at(-1)!.id) : null,
      },
    };
  });
}
