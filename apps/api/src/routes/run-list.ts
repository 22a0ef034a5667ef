import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';
import { RunProtocol } from '@platform/contracts';
import {
  NextPageToken,
  OptionalTimestamp,
  RunProtocolField,
  runProtocolOf,
  TokenUsage,
} from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { RunStatus } from './runs.js';

export interface RunListRoutesOptions {
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
}

const STATUSES = RunStatus.options;

/** `status=a,b` or `status=a&status=b`: one or several statuses. */
const StatusList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).filter((v) => v !== ''))
  .pipe(
    z
      .array(z.string())
      .min(1, 'name at least one status')
      .refine(
        (values) => values.every((v) => (STATUSES as readonly string[]).includes(v)),
        `each status must be one of ${STATUSES.join(', ')}`,
      ),
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
    createdAfter: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-06-01T00:00:00Z' })
      .optional(),
    createdBefore: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-06-01T00:00:00Z' })
      .optional(),
    parentRunId: Id.optional(),
    protocol: RunProtocol.optional(),
    pageSize: z.coerce.number().int().min(1).max(200).optional(),
    pageToken: z.string().min(1).max(1_000).optional(),
  })
  .strict();

const iso = (date: Date | undefined): string | null => date?.toISOString() ?? null;

const RunSummary = z
  .object({
    runId: z.string(),
    conversationId: z.string(),
    status: RunStatus,
    stopReason: z.string().nullable(),
    source: z.string().meta({ description: 'user, trigger, child or notice.' }),
    parentRunId: z.string().nullable(),
    profile: z.string(),
    createdAt: OptionalTimestamp,
    startedAt: OptionalTimestamp,
    finishedAt: OptionalTimestamp,
    traceId: z.string().nullable(),
    turns: z.number().int().min(0),
    toolCalls: z.number().int().min(0),
    usage: TokenUsage,
    replayOf: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Set for a replay: the run it replays, from step `replayFromStep`.' }),
    replayFromStep: z.number().int().min(0).nullable().optional(),
    protocol: RunProtocolField.optional(),
  })
  .meta({ id: 'RunSummary' });

export const runListOperations = {
  listRuns: defineOperation({
    method: 'GET',
    path: '/v1/runs',
    operationId: 'listRuns',
    summary: "The tenant's runs, newest first, filtered and paged",
    tags: ['runs'],
    access: 'tenant',
    role: 'viewer',
    query: RunListQuery,
    responses: {
      200: {
        description: 'A page of runs (no result or transcript: GET /v1/runs/{runId} has those).',
        body: z.object({ runs: z.array(RunSummary), nextPageToken: NextPageToken }),
        examples: {
          page: {
            runs: [
              {
                runId: 'run_1',
                conversationId: 'conv-1',
                status: 'completed',
                stopReason: 'final_answer',
                source: 'user',
                parentRunId: null,
                profile: 'default',
                createdAt: '2026-06-01T09:30:00.000Z',
                startedAt: '2026-06-01T09:30:00.010Z',
                finishedAt: '2026-06-01T09:30:02.000Z',
                traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
                turns: 2,
                toolCalls: 1,
                usage: { inputTokens: 120, outputTokens: 12, totalTokens: 132 },
              },
            ],
            nextPageToken: null,
          },
        },
      },
    },
    errors: {
      400: [
        'INVALID_PAGE_TOKEN',
        'INVALID_STOP_REASON',
        'INVALID_CONVERSATION_ID',
        'INVALID_PARENT_RUN_ID',
        'INVALID_TOOL_NAME',
        'INVALID_TIME_RANGE',
      ],
    },
  }),
};

/**
 * GET /v1/runs: the caller's tenant's runs, newest first, filtered and paged. An operator reads
 * another tenant's with the Platform-Tenant header (read-only, like every GET).
 */
export function registerRunListRoutes(router: OperationRouter, options: RunListRoutesOptions): void {
  router.add(runListOperations.listRuns, async ({ query, request }) => {
    const { tenantId } = principalOf(request);
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
      protocol: query.protocol ?? '',
    });
    return {
      status: 200,
      body: {
        runs: page.runs.map((run) => ({
          runId: run.runId,
          conversationId: run.conversationId,
          status: run.status as z.infer<typeof RunStatus>,
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
          usage: {
            inputTokens: run.usage?.inputTokens ?? 0,
            outputTokens: run.usage?.outputTokens ?? 0,
            totalTokens: run.usage?.totalTokens ?? 0,
          },
          replayOf: run.replayOf || null,
          replayFromStep: run.replayOf ? (run.replayFromStep ?? 0) : null,
          protocol: runProtocolOf(run.protocol),
        })),
        nextPageToken: page.nextPageToken || null,
      },
    };
  });
}
