import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';
import { JsonObject } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';

export interface ToolRoutesOptions {
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
}

/** A tool of the live catalog. */
const CatalogTool = z
  .object({
    name: z.string(),
    description: z.string(),
    inputSchema: JsonObject.meta({ description: 'The JSON Schema of the tool\'s arguments.' }),
    kind: z.enum(['tool', 'agent']),
    runner: z.string().meta({ description: 'The service name of the runner that serves it.' }),
    version: z.string(),
    requiresApproval: z.boolean(),
    timeoutMs: z.number().int(),
    sideEffect: z.string().meta({ description: 'none, idempotent or external.' }),
    instances: z.number().int().meta({ description: 'Runner replicas seen serving it.' }),
  })
  .meta({ id: 'CatalogTool' });

export const toolOperations = {
  listTools: defineOperation({
    method: 'GET',
    path: '/v1/tools',
    operationId: 'listTools',
    summary: 'The live tool catalog: what agents can use right now, and which runner serves it',
    tags: ['tools'],
    access: 'tenant',
    responses: {
      200: {
        description: 'The catalog.',
        body: z.object({ tools: z.array(CatalogTool) }),
        examples: {
          one: {
            tools: [
              {
                name: 'calculator',
                description: 'Evaluates arithmetic.',
                inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
                kind: 'tool',
                runner: 'builtin-tools',
                version: '1.0.0',
                requiresApproval: false,
                timeoutMs: 5000,
                sideEffect: 'none',
                instances: 2,
              },
            ],
          },
        },
      },
    },
  }),
};

/** The live tool catalog: what the agents can use right now, and which runner serves it. */
export function registerToolRoutes(router: OperationRouter, options: ToolRoutesOptions): void {
  router.add(toolOperations.listTools, async ({ request }) => {
    const { tenantId } = principalOf(request);
    const { tools } = await options.orchestrator.listTools({ tenantId });
    return {
      status: 200,
      body: {
        tools: tools.map((t) => ({
          name: t.name,
          description: t.description,
          inputSchema: JSON.parse(t.inputSchemaJson) as Record<string, unknown>,
          kind: t.kind as 'tool' | 'agent',
          runner: t.runner,
          version: t.version,
          requiresApproval: t.requiresApproval,
          timeoutMs: t.timeoutMs,
          sideEffect: t.sideEffect,
          instances: t.instances,
        })),
      },
    };
  });
}
