import { TenantId } from '@platform/contracts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { CredentialCalls } from '../credential-calls.js';
import type { DeadLetterReader } from '../events/dead-letter-reader.js';
import { HttpError } from '../http-errors.js';
import { requireOperator } from '../operator.js';

export interface AdminRoutesOptions {
  operatorRole: string;
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

/**
 * Read-only routes for operators (tokens with the operator role), about the platform rather than
 * one tenant: memory's dead letters, the credential keys and how far rewrapping has come.
 */
export function registerAdminRoutes(app: FastifyInstance, options: AdminRoutesOptions): void {
  app.get('/v1/admin/memory/dead-letters', async (request, reply) => {
    requireOperator(request, options.operatorRole);
    const query = DeadLetterQuery.safeParse(request.query);
    if (!query.success) throw new HttpError(400, 'INVALID_QUERY', 'the query takes `tenant`, `afterSeq` (>= 0) and `limit` (1-500)');
    if (!options.deadLetters) throw new HttpError(503, 'DEAD_LETTERS_UNAVAILABLE', 'the dead-letter stream is not reachable from this api');
    return reply.send(await options.deadLetters.list({ tenantId: query.data.tenant, afterSeq: query.data.afterSeq, limit: query.data.limit }));
  });

  app.get('/v1/admin/credential-keys', async (request, reply) => {
    requireOperator(request, options.operatorRole);
    if (!options.credentials) throw new HttpError(503, 'CREDENTIALS_UNAVAILABLE', 'the credential service is not configured (CREDENTIAL_PLATFORM_TOKEN)');
    const { keys } = await options.credentials.keyUsage();
    const total = keys.reduce((sum, k) => sum + k.credentials, 0);
    const onActive = keys.filter((k) => k.active).reduce((sum, k) => sum + k.credentials, 0);
    return reply.send({
      keys: keys.map((k) => ({ keyId: k.keyId, credentials: k.credentials, active: k.active, inKeyring: k.inKeyring })),
      // Rewrapping moves every credential onto the active key; done when none is left on another.
      rewrap: { total, onActiveKey: onActive, remaining: total - onActive, done: total === onActive },
    });
  });
}
