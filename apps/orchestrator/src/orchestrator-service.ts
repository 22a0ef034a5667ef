import { isTimeZone } from '@platform/agent-loop';
import { ConversationId, TenantId, type MultitaskPolicy } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { errors, PlatformError, unaryHandler, type Logger } from '@platform/service-kit';
import type { ToolCatalog } from '@platform/tool-sdk';
import { ConversationClosedError, type NewRun, type RunRecords } from './journal/run-records.js';
import { readerOf } from './conversations/conversation-access.js';
import type { ConversationQueue } from './ordering/conversation-queue.js';
import type { ShouldProcess } from './admission/should-process.js';
import type { AgentResolver } from './tenant-agents/agent-resolver.js';
import type { RunCancellation } from './run-cancellation.js';
import { isChildConversation } from './teams/child-runs.js';
import {
  activeTraceId,
  approvalDecisionOf,
  callerGone,
  delegationOf,
  runIdOf,
  runSourceOf,
  protocolOf,
  senderRoleOf,
} from './grpc-messages.js';
import { usageRangeOf } from './usage-range.js';
import { multitaskPolicyOf, type MultitaskAdmission } from './ordering/multitask.js';
import { answerOf } from './ordering/steered-answer.js';
import type { RunRecord } from './journal/run-records.js';
import type { RunListing } from './listing/run-listing.js';
import { runListQueryOf } from './listing/run-list-query.js';
import type { RunnerStats } from './runner-stats.js';
import type { ToolBreakers } from './tool-breakers.js';
import type { MemoryRecall } from './recall/memory-recall.js';
import type { DeletionStore } from './erasure/deletion-store.js';
import type { TaskToolCalls } from './tool-calls/task-tool-calls.js';
import { toolCallResult, type ToolTrials } from './tool-calls/tool-trials.js';
import { ErrorCodes } from './error-codes.js';
import { OutputSchemaError, type OutputSchemas } from './structured/output-schemas.js';
import type { IdempotencyKeys } from './idempotency/idempotency-keys.js';
import { idempotencyClaimOf, runOfKey } from './idempotency/idempotent-send.js';
import { announceRunId } from './idempotency/run-id-header.js';
import type { RunWebhooks } from './webhooks/run-webhooks.js';
import type { RunReplays } from './replays/run-replays.js';

/** What the calls other than HandleMessage use: cancelling and listing runs, the catalog, tool calls. */
interface RunAndToolCalls {
  /** Cancels a run and its child runs. */
  cancellation: RunCancellation;
  /** Lists a tenant's runs (ListRuns). */
  listing: RunListing;
  catalog: ToolCatalog;
  /** The runner replicas' `$SRV.STATS`, for the catalog (ListTools). */
  runnerStats: RunnerStats;
  /** This process's circuit breakers, shown with the catalog (ListTools). */
  breakers: ToolBreakers;
  /** Tool calls clients try directly (CallTool, GetToolCall). */
  toolTrials: ToolTrials;
  /** Tool calls of trigger tasks (condition polls, custom executors), through the same gate. */
  taskToolCalls: TaskToolCalls;
}

/** The service's own settings. */
interface OrchestratorServiceOptions {
  /** The tier of a message that names none. */
  defaultTier: string;
  /** New messages are refused (OVERLOADED) while this many turns run in this replica. */
  maxConcurrentTurns: number;
  /** How long an Idempotency-Key names its run. */
  idempotencyKeyTtlMs: number;
}

export interface OrchestratorDependencies {
  options: OrchestratorServiceOptions;
  /** What a message names, resolved to the agent version its run runs under. */
  agents: Pick<AgentResolver, 'forMessage'>;
  records: RunRecords;
  /** The tenants' Idempotency-Keys (a keyed message's run is recorded with its key). */
  idempotencyKeys: Pick<IdempotencyKeys, 'find'>;
  queue: ConversationQueue;
  shouldProcess: ShouldProcess;
  /** Starts a new message's recall as it arrives (absent: the run recalls when it starts). */
  memoryRecall?: Pick<MemoryRecall, 'prefetch'>;
  /** Compiles a message's output schema (refused here when it does not compile). */
  outputSchemas: Pick<OutputSchemas, 'fromJson'>;
  calls: RunAndToolCalls;
  /** What a message does about its conversation's run in flight (its `multitask` policy). */
  multitask: MultitaskAdmission;
  /** Webhooks when a run ends: a new run's target, and the settings and deliveries calls. */
  webhooks: Pick<RunWebhooks, 'checkUrl' | 'recordTarget' | 'handlers'>;
  /** Conversations being deleted take no new message (erasure/). */
  deletions?: Pick<DeletionStore, 'isDeleting'>;
  /** A message that replays a run (`replay_of`): checked, given the run's content and agent, its conversation forked. */
  replays?: Pick<RunReplays, 'prepare'>;
  logger: Logger;
}

/** A message's own output schema (compiled once, so a broken one is refused now); undefined when it has none. */
function outputSchemaOf(
  schemas: Pick<OutputSchemas, 'fromJson'>,
  json: string | undefined,
): Record<string, unknown> | undefined {
  if (!json) return undefined;
  try {
    return schemas.fromJson(json).schema;
  } catch (err) {
    if (!(err instanceof OutputSchemaError)) throw err;
    throw errors.invalidArgument(
      ErrorCodes.INVALID_OUTPUT_SCHEMA,
      `outputSchema (output_schema_json): ${err.message}`,
      { details: { field: 'outputSchema' } },
    );
  }
}

/** Ends a message's wait once its call is answered (or failed): nothing reads it. */
const WAIT_OVER = new Error('the call is over');

/**
 * Records the message's run (queue.admit); a conversation the sender may not reach is answered as
 * one that does not exist, so its id tells nothing (docs/conversations.md#who-can-see-a-conversation).
 */
async function admitted(deps: OrchestratorDependencies, admission: NewRun): Promise<boolean> {
  try {
    return await deps.queue.admit(admission);
  } catch (error) {
    if (error instanceof ConversationClosedError)
      throw errors.notFound(ErrorCodes.CONVERSATION_NOT_FOUND, `no conversation '${error.conversationId}'`);
    throw error;
  }
}

/** The gRPC surface: accept a message as a run and wait for it; read and cancel runs; the catalog. */
export function orchestratorServiceImplementation(
  deps: OrchestratorDependencies,
): orchestratorV1.OrchestratorServiceServer {
  const { options, logger } = deps;
  let inFlight = 0;
  return {
    ...deps.webhooks.handlers(),
    handleMessage: unaryHandler<orchestratorV1.HandleMessageRequest, orchestratorV1.HandleMessageResponse>(
      logger,
      'HandleMessage',
      async (received, call) => {
        const tenantId = TenantId.safeParse(received.tenantId);
        const conversationId = ConversationId.safeParse(received.conversationId);
        if (!tenantId.success) throw errors.invalidArgument(ErrorCodes.INVALID_TENANT_ID, 'tenant_id is invalid');
        if (!conversationId.success)
          throw errors.invalidArgument(ErrorCodes.INVALID_CONVERSATION_ID, 'conversation_id is invalid');
        const protocol = protocolOf(received.protocol);
        // A replay (replays/) is the original run's message again, with the request's changes.
        const replay = await deps.replays?.prepare(received);
        const request = replay ? { ...received, ...replay.message } : received;
        const runId = runIdOf(request.runId);
        const scope = { tenantId: tenantId.data, conversationId: conversationId.data };
        const claim = idempotencyClaimOf(request, options.idempotencyKeyTtlMs);
        const keyed = { keys: deps.idempotencyKeys, runs: deps.records };

        // A retry after a lost connection attaches to its run; a new message is admitted first.
        let existing = request.attach ? await deps.records.get(scope.tenantId, runId) : undefined;
        // A repeat of a keyed message is answered with the run its key started (docs/conversations.md).
        if (!existing && claim) existing = await runOfKey(keyed, scope, claim);
        let admission: NewRun | undefined;
        let multitask: { policy: MultitaskPolicy; inFlight: RunRecord | undefined } | undefined;
        let webhookUrl: string | undefined;
        if (!existing) {
          // A child run's conversation belongs to its team: the user answers in the root conversation.
          if (isChildConversation(scope.conversationId)) {
            throw errors.invalidArgument(
              ErrorCodes.DELEGATION_CONVERSATION,
              `'${scope.conversationId}' is a child run's conversation; send the message to its team's conversation (GET /v1/runs/{runId}: rootConversationId)`,
            );
          }
          if (await deps.deletions?.isDeleting(scope.tenantId, scope.conversationId))
            throw new PlatformError(
              'failed_precondition',
              ErrorCodes.CONVERSATION_DELETING,
              `conversation '${scope.conversationId}' is being deleted; send again once its deletion completed`,
            );
          if (!request.content.trim())
            throw errors.invalidArgument(ErrorCodes.EMPTY_CONTENT, 'content must not be empty');
          // Postgres text cannot hold U+0000; no real message has one.
          if (request.content.includes('\u0000'))
            throw errors.invalidArgument(
              ErrorCodes.INVALID_CONTENT,
              'content must not contain the NUL character (U+0000)',
            );
          const source = runSourceOf(request.source);
          if (request.timeZone && !isTimeZone(request.timeZone))
            throw errors.invalidArgument(
              ErrorCodes.INVALID_TIME_ZONE,
              `'${request.timeZone}' is not an IANA time zone`,
            );
          const outputSchema = outputSchemaOf(deps.outputSchemas, request.outputSchemaJson);
          if (request.webhookUrl) webhookUrl = await deps.webhooks.checkUrl(request.webhookUrl, 'webhook.url');
          // The agent and version the run will run under, fixed now (tenant-agents/agent-resolver.ts).
          // The answer to a run that waits for the user (an approval, an agent-tool) goes on under its version.
          const latest = await deps.records.latestRun(scope.tenantId, scope.conversationId);
          const resolved = await deps.agents.forMessage({
            ...(latest?.status === 'waiting' && latest.agent ? { continues: latest.agent } : {}),
            ...scope,
            tier: request.tier || options.defaultTier,
            subject: request.subject ?? '',
            ref: request.profile,
            version: request.agentVersion ?? 0,
            overridesJson: request.overridesJson ?? '',
          });
          const profile = resolved.profile;
          // Back-pressure: a saturated replica refuses new turns instead of queueing without bound.
          if (inFlight >= options.maxConcurrentTurns) {
            throw new PlatformError(
              'unavailable',
              ErrorCodes.OVERLOADED,
              `this orchestrator is running ${inFlight} turns, its limit; try again shortly`,
              { retryAfterSeconds: 1 },
            );
          }
          const approval = approvalDecisionOf(request);
          // An approval decision answers a waiting run: it is never a second message in flight.
          const policy = approval ? 'enqueue' : multitaskPolicyOf(request.multitask, profile.multitask);
          multitask = { policy, inFlight: await deps.multitask.before(policy, scope) };
          await deps.shouldProcess.check({
            ...scope,
            content: request.content,
            tier: request.tier,
            profile: profile.name,
          });
          // Every check passed: the replay's conversation is forked now, before its run exists.
          await replay?.fork();
          // The message's output schema wins over the profile's.
          const runSchema = outputSchema ?? profile.outputSchema;
          // An approval decision resumes a waiting step and asks nothing new of memory.
          if (!approval && profile.recall !== false)
            deps.memoryRecall?.prefetch({
              runId,
              ...scope,
              query: request.content,
              ...(profile.recallBudgetTokens !== undefined ? { budgetTokens: profile.recallBudgetTokens } : {}),
            });
          admission = {
            runId,
            ...scope,
            profile: resolved.name,
            content: request.content,
            tier: request.tier,
            stream: request.stream,
            timeZone: request.timeZone,
            ...(approval ? { approval } : {}),
            ...(source ? { source } : {}),
            // Kept with the run: a resumed turn checks against the schema it was asked with.
            ...(runSchema ? { outputSchema: runSchema } : {}),
            ...activeTraceId(),
            agent: resolved.agent,
            ...(resolved.overrides ? { overrides: resolved.overrides } : {}),
            ...(request.subject ? { subject: request.subject } : {}),
            ...senderRoleOf(request.role),
            ...protocol,
            ...(claim ? { idempotency: claim } : {}),
            ...(replay ? { replay: replay.record } : {}),
            // Recorded with the run: the conversation's owner, activity and agent, if the sender reaches
            // it. An approval decision reaches the run's conversation whoever decides (the api checked the decider).
            conversation: {
              sender: request.subject ?? '',
              agentName: resolved.name,
              seesAll:
                approval !== undefined || readerOf(scope.tenantId, request.subject ?? '', request.role ?? '').seesAll,
            },
          };
        }
        if (existing && existing.conversationId !== scope.conversationId)
          throw errors.notFound(ErrorCodes.RUN_NOT_FOUND, `no run '${runId}' in this conversation`);
        inFlight += 1;
        // The caller hanging up stops the wait, not the run: it is durable, and GET /v1/runs/{id} has it.
        const hangUp = new AbortController();
        let answered = false;
        // grpc-js also reports 'cancelled' when a finished call closes: only a caller still waiting hung up.
        call.on('cancelled', () => {
          if (!answered)
            hangUp.abort(
              new PlatformError('cancelled', ErrorCodes.CALLER_CANCELLED, 'the caller cancelled the request'),
            );
        });
        try {
          // The wait starts before the run is recorded, so the run's end cannot slip past it.
          const ownWait = new AbortController();
          let finished = deps.queue.waitForRun(
            scope.tenantId,
            scope.conversationId,
            existing?.runId ?? runId,
            AbortSignal.any([hangUp.signal, ownWait.signal]),
          );
          finished.catch(() => undefined); // awaited below, or abandoned when admission fails
          let host: RunRecord | undefined;
          // The target (the message's, the conversation's or the tenant's URL) is written before the run,
          // so a run that exists has it (its end writes the delivery).
          if (admission) await deps.webhooks.recordTarget(scope.tenantId, scope.conversationId, runId, webhookUrl);
          if (!admission) deps.queue.kick(scope.tenantId, scope.conversationId);
          else if (!(await admitted(deps, admission))) {
            // A keyed message that lost the race for its key: the winner's run is the answer.
            const winner = claim ? await runOfKey(keyed, scope, claim) : undefined;
            if (winner && winner.runId !== runId) {
              ownWait.abort(WAIT_OVER);
              finished = deps.queue.waitForRun(scope.tenantId, scope.conversationId, winner.runId, hangUp.signal);
              finished.catch(() => undefined);
              deps.queue.kick(scope.tenantId, scope.conversationId);
              announceRunId(call, claim, winner.runId);
              return await answerOf(deps, {
                ...scope,
                messageRunId: winner.runId,
                own: finished,
                signal: hangUp.signal,
              });
            }
            // The id exists already: the same tenant's run is attached to; another tenant's is not revealed.
            existing = await deps.records.get(scope.tenantId, runId);
            if (!existing)
              throw new PlatformError(
                'already_exists',
                ErrorCodes.RUN_ID_TAKEN,
                `run id '${runId}' is taken; use another`,
              );
            if (existing.conversationId !== scope.conversationId)
              throw errors.notFound(ErrorCodes.RUN_NOT_FOUND, `no run '${runId}' in this conversation`);
          } else if (multitask) host = await deps.multitask.after(multitask.policy, multitask.inFlight, runId);
          announceRunId(call, claim, existing?.runId ?? runId);
          // A steering message is answered by the run it joined (ordering/steered-answer.ts).
          const messageRunId = existing?.runId ?? runId;
          return await answerOf(deps, { ...scope, messageRunId, own: finished, host, signal: hangUp.signal });
        } finally {
          answered = true;
          hangUp.abort(WAIT_OVER);
          inFlight -= 1;
        }
      },
    ),

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
