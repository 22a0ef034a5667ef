import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { ApiErrorCodes } from '../error-codes.js';

export interface UsageRoutesOptions {
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
}

const Day = z.string().max(32).meta({ description: 'A UTC day, YYYY-MM-DD.', example: '2026-06-01' });
const UsageQuery = z.object({ from: Day.optional(), to: Day.optional() }).strict();
const DayUsage = z.object({ turns: z.number().int(), inputTokens: z.number().int(), outputTokens: z.number().int() });

export const usageOperations = {
  getUsage: defineOperation({
    method: 'GET',
    path: '/v1/usage',
    operationId: 'getUsage',
    summary: 'Turns and tokens per UTC day (at most 366 days)',
    tags: ['usage'],
    access: 'tenant',
    role: 'viewer',
    query: UsageQuery,
    invalid: {
      query: { code: ApiErrorCodes.INVALID_QUERY, message: 'the query takes only `from` and `to`, days as YYYY-MM-DD' },
    },
    responses: {
      200: {
        description: 'Usage per day and in total.',
        body: z.object({ days: z.array(DayUsage.extend({ day: z.string() })), total: DayUsage }),
        examples: {
          week: {
            days: [{ day: '2026-06-01', turns: 12, inputTokens: 5400, outputTokens: 800 }],
            total: { turns: 12, inputTokens: 5400, outputTokens: 800 },
          },
        },
      },
    },
    errors: { 400: ['INVALID_DAY', 'INVALID_RANGE'] },
  }),
};

/** The caller's tenant's token usage per UTC day (the orchestrator checks the range). */
export function registerUsageRoutes(router: OperationRouter, options: UsageRoutesOptions): void {
  router.add(usageOperations.getUsage, async ({ query, request }) => {
    const { tenantId } = principalOf(request);
    const { days } = await options.orchestrator.getUsage({
      tenantId,
      fromDay: query.from ?? '',
      toDay: query.to ?? '',
    });
    const total = days.reduce(
      (sum, d) => ({
        turns: sum.turns + d.turns,
        inputTokens: sum.inputTokens + d.inputTokens,
        outputTokens: sum.outputTokens + d.outputTokens,
      }),
      {
        turns: 0,
        inputTokens: 0,
        outputTokens: 0,
      },
    );
    return {
      status: 200,
      body: {
        days: days.map((d) => ({
          day: d.day,
          turns: d.turns,
          inputTokens: d.inputTokens,
          outputTokens: d.outputTokens,
        })),
        total,
      },
    };
  });
}
