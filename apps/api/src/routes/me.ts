import { TenantRole } from '@platform/contracts';
import { z } from 'zod';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';

export const meOperations = {
  getMe: defineOperation({
    method: 'GET',
    path: '/v1/me',
    operationId: 'getMe',
    summary: 'Who the caller is: tenant, subject, tenant role, key',
    description: 'The console reads it to show only what the role may do (docs/access.md).',
    tags: ['access'],
    access: 'tenant',
    role: 'viewer',
    responses: {
      200: {
        description: 'The caller as the api established it.',
        body: z.object({
          tenantId: z.string(),
          subject: z.string().nullable(),
          role: TenantRole,
          operator: z.boolean().meta({ description: 'Whether the token holds the operator role.' }),
          keyId: z.string().nullable(),
          actingUser: z.string().nullable(),
        }),
        examples: {
          member: {
            tenantId: 'acme',
            subject: 'alice',
            role: 'member',
            operator: false,
            keyId: null,
            actingUser: null,
          },
        },
      },
    },
  }),
};

/** GET /v1/me. */
export function registerMeRoutes(router: OperationRouter, options: { operatorRole: string }): void {
  router.add(meOperations.getMe, async ({ request }) => {
    const principal = principalOf(request);
    return {
      status: 200,
      body: {
        tenantId: principal.tenantId,
        subject: principal.subject ?? null,
        role: principal.role,
        operator: principal.roles?.includes(options.operatorRole) ?? false,
        keyId: principal.keyId ?? null,
        actingUser: principal.actingUser ?? null,
      },
    };
  });
}
