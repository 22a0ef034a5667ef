import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { HttpError } from '../http-errors.js';
import { principalOf } from '../principal.js';

export interface UsageRoutesOptions {
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
}

const UsageQuery = z.object({ from: z.string().max(32).optional(), to: z.string().max(32).optional() }).strict();

/** The caller's tenant's token usage per UTC day (the orchestrator checks the range). */
export function registerUsageRoutes(app: FastifyInstance, options: UsageRoutesOptions): void {
  app.get('/v1/usage', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const query = UsageQuery.safeParse(request.query);
    if (!query.success) throw new HttpError(400, 'INVALID_QUERY', 'the query takes only `from` and `to`, days as YYYY-MM-DD');
    const { days } = await options.orchestrator.getUsage({ tenantId, fromDay: query.data.from ?? '', toDay: query.data.to ?? '' });
    const total = days.reduce((sum, d) => ({ turns: sum.turns + d.turns, inputTokens: sum.inputTokens + d.inputTokens, outputTokens: sum.outputTokens + d.outputTokens }), {
      turns: 0,
      inputTokens: 0,
      outputTokens: 0,
    });
    return reply.send({ days: days.map((d) => ({ day: d.day, turns: d.turns, inputTokens: d.inputTokens, outputTokens: d.outputTokens })), total });
  });
}
