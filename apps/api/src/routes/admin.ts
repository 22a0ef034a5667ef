import { TenantId } from '@platform/contracts';
import { z } from 'zod';
import type { CredentialCalls } from '../credential-calls.js';
import { DeadLetterPage, type DeadLetterReader } from '../events/dead-letter-reader.js';
import { HttpError } from '../http-errors.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { ApiErrorCodes } from '../error-codes.js';

export interface AdminRoutesOptions {
  deadLetters?: DeadLetterReader | undefined;
  credentials?: CredentialCalls | undefined;
}

const DeadLetterQuery = z
  .object({
    tenant: TenantId.optional(),
    afterSeq: z.coerce.number().int().min(0).default(0),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();

const KeyUsage = z.object({
  keys: z.array(
    z.object({ keyId: z.string(), credentials: z.number().int(), active: z.boolean(), inKeyring: z.boolean() }),
  ),
  rewrap: z
    .object({ total: z.number().int(), onActiveKey: z.number().int(), remaining: z.number().int(), done: z.boolean() })
    .meta({ description: 'Rewrapping moves every credential onto the active key; done when none is left on another.' }),
});

export const adminOperations = {
  listDeadLetters: defineOperation({
    method: 'GET',
    path: '/v1/admin/memory/dead-letters',
    operationId: 'listMemoryDeadLetters',
    summary: "Memory's dead-lettered ingestion work, oldest first",
    tags: ['operators'],
    access: 'operator',
    query: DeadLetterQuery,
    invalid: {
      query: {
        code: ApiErrorCodes.INVALID_QUERY,
        message: 'the query takes `tenant`, `afterSeq` (>= 0) and `limit` (1-500)',
      },
    },
    responses: {
      200: {
        description: 'A page of dead letters (without their bodies, which hold conversations).',
        body: DeadLetterPage,
        examples: {
          one: {
            deadLetters: [
              {
                seq: 1,
                tenantId: 'acme',
                runId: 'run_1',
                reason: 'extraction_failed',
                detail: 'the model answered no JSON',
                deliveries: 5,
                deadAt: '2026-06-01T09:30:00.000Z',
                originalSubject: 'memory.ingest.acme',
              },
            ],
            total: 1,
            nextAfterSeq: null,
          },
        },
      },
    },
    errors: { 503: ['DEAD_LETTERS_UNAVAILABLE'] },
  }),
  credentialKeys: defineOperation({
    method: 'GET',
    path: '/v1/admin/credential-keys',
    operationId: 'getCredentialKeyUsage',
    summary: 'The credential keys and how far rewrapping has come',
    tags: ['operators'],
    access: 'operator',
    responses: {
      200: {
        description: 'Credentials per key.',
        body: KeyUsage,
        examples: {
          rewrapping: {
            keys: [
              { keyId: 'k2', credentials: 10, active: true, inKeyring: true },
              { keyId: 'k1', credentials: 2, active: false, inKeyring: true },
            ],
            rewrap: { total: 12, onActiveKey: 10, remaining: 2, done: false },
          },
        },
      },
    },
    errors: { 503: ['CREDENTIALS_UNAVAILABLE', 'UNAVAILABLE'] },
  }),
};

/**
 * Read-only routes for operators (tokens with the operator role; the router checks it), about the platform rather than
 * one tenant: memory's dead letters, the credential keys and how far rewrapping has come.
 */
export function registerAdminRoutes(router: OperationRouter, options: AdminRoutesOptions): void {
  router.add(adminOperations.listDeadLetters, async ({ query }) => {
    if (!options.deadLetters)
      throw new HttpError(
        503,
        ApiErrorCodes.DEAD_LETTERS_UNAVAILABLE,
        'the dead-letter stream is not reachable from this api',
      );
    return {
      status: 200,
      body: await options.deadLetters.list({ tenantId: query.tenant, afterSeq: query.afterSeq, limit: query.limit }),
    };
  });

  router.add(adminOperations.credentialKeys, async () => {
    if (!options.credentials)
      throw new HttpError(
        503,
        ApiErrorCodes.CREDENTIALS_UNAVAILABLE,
        'the credential service is not configured (CREDENTIAL_PLATFORM_TOKEN)',
      );
    const { keys } = await options.credentials.keyUsage();
    const total = keys.reduce((sum, k) => sum + k.credentials, 0);
    const onActive = keys.filter((k) => k.active).reduce((sum, k) => sum + k.credentials, 0);
    return {
      status: 200,
      body: {
        keys: keys.map((k) => ({
          keyId: k.keyId,
          credentials: k.credentials,
          active: k.active,
          inKeyring: k.inKeyring,
        })),
        // Rewrapping moves every credential onto the active key; done when none is left on another.
        rewrap: { total, onActiveKey: onActive, remaining: total - onActive, done: total === onActive },
      },
    };
  });
}
