import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../principal.js';

export interface ToolRoutesOptions {
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
}

/** The live tool catalog: what the agents can use right now, and which runner serves it. */
export function registerToolRoutes(app: FastifyInstance, options: ToolRoutesOptions): void {
  app.get('/v1/tools', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const { tools } = await options.orchestrator.listTools({ tenantId });
    return reply.send({
      tools: tools.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: JSON.parse(t.inputSchemaJson) as unknown,
        kind: t.kind,
        runner: t.runner,
        version: t.version,
        requiresApproval: t.requiresApproval,
        timeoutMs: t.timeoutMs,
        sideEffect: t.sideEffect,
        instances: t.instances,
      })),
    });
  });
}
