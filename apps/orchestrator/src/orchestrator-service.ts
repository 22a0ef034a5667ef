import { TenantId } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { errors, unaryHandler } from '@platform/service-kit';
import { callerGone, delegationOf } from './grpc-messages.js';
import { usageRangeOf } from './usage-range.js';
import { runListQueryOf } from './listing/run-list-query.js';
import { toolCallResult } from './tool-calls/tool-trials.js';
import { ErrorCodes } from './error-codes.js';
import type { OrchestratorDependencies } from './orchestrator-dependencies.js';
import { handleMessageHandler } from './handle-message.js';

/** The gRPC surface: accept a message as a run and wait for it; read and cancel runs; the catalog. */
export function orchestratorServiceImplementation(
  deps: OrchestratorDependencies,
): orchestratorV1.OrchestratorServiceServer {
  const { logger } = deps;
  return {
    ...deps.webhooks.handlers(),
    ...deps.calls.a2aPush.handlers(),
    handleMessage: handleMessageHandler(deps),

    listTools: unaryHandler<orchestratorV1.ListToolsRequest, orchestratorV1.ListToolsResponse>(
      logger,
      'ListTools',
      async () => {
        const tools = deps.calls.catalog.list();
        const instances = await deps.calls.runnerStats.instancesOf(tools);
        return {
          tools: tools.map((t) => ({
            name: t.name,
            description: t.description,
            inputSchemaJson: JSON.stringify(t.inputSchema),
            kind: t.kind,
            runner: t.runner,
            version: t.version,
            requiresApproval: t.requiresApproval,
            timeoutMs: t.timeoutMs,
            sideEffect: t.sideEffect,
            instances: t.instances.length,
            runnerInstances: instances.get(t.name) ?? [],
            breaker: deps.calls.breakers.view(t.name),
          })),
        };
      },
    ),

    // Every caller's call passes the tool gate (tool-gate/): a client trying a tool, journaled; a
    // trigger task's condition poll or executor fire, checked at the task's creation by a dry run.
    callTool: unaryHandler<orchestratorV1.CallToolRequest, orchestratorV1.CallToolResponse>(
      logger,
      'CallTool',
      async (request, call) => {
        if (request.caller === '' || request.caller === 'try')
          return { call: toolCallResult(await deps.calls.toolTrials.call(request, callerGone(call))) };
        if (request.dryRun) {
          await deps.calls.taskToolCalls.check(request);
          return { call: undefined };
        }
        return { call: await deps.calls.taskToolCalls.call(request, callerGone(call)) };
      },
    ),

    callToolBatch: unaryHandler<orchestratorV1.CallToolBatchRequest, orchestratorV1.CallToolBatchResponse>(
      logger,
      'CallToolBatch',
      async (request, call) => ({
        results: await deps.calls.taskToolCalls.callBatch(request.calls, callerGone(call)),
      }),
    ),

    getToolCall: unaryHandler<orchestratorV1.GetToolCallRequest, orchestratorV1.GetToolCallResponse>(
      logger,
      'GetToolCall',
      async (request) => ({
        call: toolCallResult(await deps.calls.toolTrials.get(request.tenantId, request.callId)),
      }),
    ),

    getRun: unaryHandler<orchestratorV1.GetRunRequest, orchestratorV1.GetRunResponse>(
      logger,
      'GetRun',
      async (request) => {
        if (!TenantId.safeParse(request.tenantId).success)
          throw errors.invalidArgument(ErrorCodes.INVALID_TENANT_ID, 'tenant_id is invalid');
        // Another tenant's run is reported exactly like a missing one, so ids do not leak.
        const run = request.runId ? await deps.records.get(request.tenantId, request.runId) : undefined;
        if (!run) throw errors.notFound(ErrorCodes.RUN_NOT_FOUND, `no run '${request.runId}'`);
        return {
          runId: run.runId,
          conversationId: run.conversationId,
          status: run.status,
          stopReason: run.stopReason ?? '',
          createdAt: run.createdAt,
          finishedAt: run.finishedAt ?? undefined,
          resultJson: JSON.stringify(run.result),
          transcriptJson: JSON.stringify(run.transcript ?? []),
          traceId: run.traceId ?? '',
          delegationJson: JSON.stringify(await delegationOf(deps.records, run)),
          planJson: run.plan ? JSON.stringify(run.plan) : '',
          source: run.startedBy ?? 'user',
          profile: run.profile,
          startedAt: run.startedAt ?? undefined,
          agentId: run.agent?.id ?? '',
          agentVersion: run.agent?.version ?? 0,
          overridesJson: run.overrides ? JSON.stringify(run.overrides) : '',
          subject: run.subject ?? '',
          stopRequested: run.stopRequested ?? '',
          stoppedBy: run.stoppedBy ?? '',
          replayOf: run.replay?.runId ?? '',
          replayFromStep: run.replay?.fromStep ?? 0,
          replays: await deps.records.replaysOf(run.tenantId, run.runId),
          ...(run.protocol ? { protocol: run.protocol } : {}),
          ...(run.protocolRequest ? { protocolRequestJson: JSON.stringify(run.protocolRequest) } : {}),
        };
      },
    ),

    listRuns: unaryHandler<orchestratorV1.ListRunsRequest, orchestratorV1.ListRunsResponse>(
      logger,
      'ListRuns',
      (request) => deps.calls.listing.list(runListQueryOf(request)),
    ),

    getUsage: unaryHandler<orchestratorV1.GetUsageRequest, orchestratorV1.GetUsageResponse>(
      logger,
      'GetUsage',
      async (request) => {
        if (!TenantId.safeParse(request.tenantId).success)
          throw errors.invalidArgument(ErrorCodes.INVALID_TENANT_ID, 'tenant_id is invalid');
        const { fromDay, toDay } = usageRangeOf(request.fromDay, request.toDay, new Date());
        return { days: await deps.records.usage(request.tenantId, fromDay, toDay) };
      },
    ),

    cancelRun: unaryHandler<orchestratorV1.CancelRunRequest, orchestratorV1.CancelRunResponse>(
      logger,
      'CancelRun',
      async (request) => {
        if (!TenantId.safeParse(request.tenantId).success)
          throw errors.invalidArgument(ErrorCodes.INVALID_TENANT_ID, 'tenant_id is invalid');
        // Its child runs (delegations) are cancelled with it.
        const outcome = request.runId
          ? await deps.calls.cancellation.cancel(request.tenantId, request.runId)
          : undefined;
        if (!outcome) throw errors.notFound(ErrorCodes.RUN_NOT_FOUND, `no run '${request.runId}'`);
        return { runId: outcome.run.runId, status: outcome.run.status, accepted: outcome.accepted };
      },
    ),
  };
}
