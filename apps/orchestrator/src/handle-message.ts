import { isTimeZone } from '@platform/agent-loop';
import { ConversationId, TenantId, type MultitaskPolicy } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { errors, PlatformError, unaryHandler } from '@platform/service-kit';
import { ConversationClosedError, type NewRun } from './journal/run-records.js';
import { readerOf } from './conversations/conversation-access.js';
import { isChildConversation } from './teams/child-runs.js';
import {
  activeTraceId,
  approvalDecisionOf,
  runIdOf,
  runSourceOf,
  protocolOf,
  protocolRequestOf,
  senderRoleOf,
} from './grpc-messages.js';
import { multitaskPolicyOf } from './ordering/multitask.js';
import { answerOf } from './ordering/steered-answer.js';
import type { RunRecord } from './journal/run-records.js';
import { ErrorCodes } from './error-codes.js';
import { OutputSchemaError, type OutputSchemas } from './structured/output-schemas.js';
import { idempotencyClaimOf, runOfKey } from './idempotency/idempotent-send.js';
import { announceRunId } from './idempotency/run-id-header.js';
import type { OrchestratorDependencies } from './orchestrator-dependencies.js';

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

/**
 * HandleMessage: accept a message as a run (admission: the agent, the multitask policy, the
 * replica's turn limit, the conversation's queue) and answer once the run ends or waits.
 */
export function handleMessageHandler(
  deps: OrchestratorDependencies,
): orchestratorV1.OrchestratorServiceServer['handleMessage'] {
  const { options, logger } = deps;
  // The turns this replica runs for messages it was sent (the OVERLOADED limit).
  let inFlight = 0;
  return unaryHandler<orchestratorV1.HandleMessageRequest, orchestratorV1.HandleMessageResponse>(
    logger,
    'HandleMessage',
    async (received, call) => {
      const tenantId = TenantId.safeParse(received.tenantId);
      const conversationId = ConversationId.safeParse(received.conversationId);
      if (!tenantId.success) throw errors.invalidArgument(ErrorCodes.INVALID_TENANT_ID, 'tenant_id is invalid');
      if (!conversationId.success)
        throw errors.invalidArgument(ErrorCodes.INVALID_CONVERSATION_ID, 'conversation_id is invalid');
      const protocol = { ...protocolOf(received.protocol), ...protocolRequestOf(received.protocolRequestJson) };
      // A replay (replays/) is the original run's message again, with the request's changes.
      const replay = await deps.intake.replays?.prepare(received);
      const request = replay ? { ...received, ...replay.message } : received;
      const runId = runIdOf(request.runId);
      const scope = { tenantId: tenantId.data, conversationId: conversationId.data };
      const claim = idempotencyClaimOf(request, options.idempotencyKeyTtlMs);
      const keyed = { keys: deps.intake.idempotencyKeys, runs: deps.records };

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
        if (await deps.intake.deletions?.isDeleting(scope.tenantId, scope.conversationId))
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
          throw errors.invalidArgument(ErrorCodes.INVALID_TIME_ZONE, `'${request.timeZone}' is not an IANA time zone`);
        const outputSchema = outputSchemaOf(deps.intake.outputSchemas, request.outputSchemaJson);
        if (request.webhookUrl) webhookUrl = await deps.webhooks.checkUrl(request.webhookUrl, 'webhook.url');
        // The agent and version the run will run under, fixed now (tenant-agents/agent-resolver.ts).
        // The answer to a run that waits for the user (an approval, an agent-tool) goes on under its version.
        const latest = await deps.records.latestRun(scope.tenantId, scope.conversationId);
        const resolved = await deps.intake.agents.forMessage({
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
        multitask = { policy, inFlight: await deps.intake.multitask.before(policy, scope) };
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
          deps.intake.memoryRecall?.prefetch({
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
          hangUp.abort(new PlatformError('cancelled', ErrorCodes.CALLER_CANCELLED, 'the caller cancelled the request'));
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
        } else if (multitask) host = await deps.intake.multitask.after(multitask.policy, multitask.inFlight, runId);
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
  );
}
