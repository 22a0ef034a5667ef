import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../http-errors.js';
import { principalOf } from '../principal.js';

export interface RunListRoutesOptions {
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
}

const STATUSES = ['queued', 'running', 'completed', 'waiting', 'failed', 'cancelled'] as const;

/** `status=a,b` or `status=a&status=b`: one or several statuses. */
const StatusList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).filter((v) => v !== ''))
  .pipe(
    z
      .array(z.string())
      .min(1, 'name at least one status')
      .refine((values) => values.every((v) => (STATUSES as readonly string[]).includes(v)), `each status must be one of ${STATUSES.join(', ')}`),
  );

const Id = z.string().min(1).max(128);

/** The query of GET /v1/runs; the orchestrator checks the values further (ids, stop reasons). */
const RunListQuery = z
  .object({
    conversationId: Id.optional(),
    status: StatusList.optional(),
    stopReason: z.string().min(1).max(64).optional(),
    tool: z.string().min(1).max(128).optional(),
    source: z.enum(['user', 'trigger', 'child', 'notice']).optional(),
    createdAfter: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-06-01T00:00:00Z' }).optional(),
    createdBefore: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-06-01T00:00:00Z' }).optional(),
    parentRunId: Id.optional(),
    pageSize: z.coerce.number().int().min(1).max(200).optional(),
    pageToken: z.string().min(1).max(1_000).optional(),
  })
  .strict();

const iso = (date: Date | undefined): string | null => date?.toISOString() ?? null;

/** A run as listings show it: no result or transcript (GET /v1/runs/{runId} has those). */
function runSummary(run: orchestratorV1.RunListItem): Record<string, unknown> {
  return {
    runId: run.runId,
    conversationId: run.conversationId,
    status: run.status,
    stopReason: run.stopReason || null,
    source: run.source,
    parentRunId: run.parentRunId || null,
    profile: run.profile,
    createdAt: iso(run.createdAt),
    startedAt: iso(run.startedAt),
    finishedAt: iso(run.finishedAt),
    traceId: run.traceId || null,
    turns: run.turns,
    toolCalls: run.toolCalls,
    usage: { inputTokens: run.usage?.inputTokens ?? 0, outputTokens: run.usage?.outputTokens ?? 0, totalTokens: run.usage?.totalTokens ?? 0 },
  };
}

/**
 * GET /v1/runs: the caller's tenant's runs, newest first, filtered and paged. An operator reads
 * another tenant's with the Platform-Tenant header (read-only, like every GET).
 */
export function registerRunListRoutes(app: FastifyInstance, options: RunListRoutesOptions): void {
  app.get('/v1/runs', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const query = parseInput(RunListQuery, request.query, 'INVALID_QUERY');
    const page = await options.orchestrator.listRuns({
      tenantId,
      conversationId: query.conversationId ?? '',
      statuses: query.status ?? [],
      stopReason: query.stopReason ?? '',
      toolName: query.tool ?? '',
      source: query.source ?? '',
      createdAfter: query.createdAfter ? new Date(query.createdAfter) : undefined,
      createdBefore: query.createdBefore ? new Date(query.createdBefore) : undefined,
      parentRunId: query.parentRunId ?? '',
      pageSize: query.pageSize ?? 0,
      pageToken: query.pageToken ?? '',
    });
    return reply.send({ runs: page.runs.map(runSummary), nextPageToken: page.nextPageToken || null });
  });
}
