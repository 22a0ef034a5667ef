import { RunId } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../http-errors.js';
import { principalOf } from '../principal.js';

export interface RunRoutesOptions {
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
}

/** Reading a finished run: its result and the transcript of each iteration. */
export function registerRunRoutes(app: FastifyInstance, options: RunRoutesOptions): void {
  app.get('/v1/runs/:runId', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const runId = RunId.safeParse((request.params as { runId?: unknown }).runId);
    if (!runId.success) throw new HttpError(400, 'INVALID_RUN_ID', 'runId is invalid');
    const run = await options.orchestrator.getRun({ tenantId, runId: runId.data });
    return reply.send({
      runId: run.runId,
      conversationId: run.conversationId,
      status: run.status,
      stopReason: run.stopReason,
      createdAt: run.createdAt?.toISOString() ?? null,
      finishedAt: run.finishedAt?.toISOString() ?? null,
      result: JSON.parse(run.resultJson) as unknown,
      transcript: JSON.parse(run.transcriptJson) as unknown,
    });
  });
}
