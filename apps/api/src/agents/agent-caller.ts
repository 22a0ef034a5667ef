import type { agentsV1 } from '@platform/proto';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../principal.js';

/** Who asks the agent service: the token's tenant, its user (recorded as a version's author) and tier. */
export function agentCallerOf(request: FastifyRequest): agentsV1.AgentCaller {
  const principal = principalOf(request);
  return { tenantId: principal.tenantId, subject: principal.subject ?? '', tier: principal.tier ?? '' };
}
