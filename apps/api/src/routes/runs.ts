import { RunEventEnvelope, RunId, RunOverrides } from '@platform/contracts';
import { RunAgent, runAgentOf } from '../agents/agent-json.js';
import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';
import type { RunEvents } from '../events/run-event-reader.js';
import { lastEventIdOf, SseStream } from '../events/sse.js';
import { HttpError } from '../http-errors.js';
import { OptionalTimestamp, RunProtocolField, runProtocolOf, Timestamp } from '../openapi/common-schemas.js';
import { defineOperation, STREAMED } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import type { StreamQuota } from '../quotas/stream-leases.js';
import { ApiErrorCodes } from '../error-codes.js';

export interface RunRoutesOptions {
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
  events: RunEvents;
  sseHeartbeatMs: number;
  /** The tenant's concurrent_streams quota (GET /v1/runs/{runId}/events). */
  streams: StreamQuota;
}

/** The statuses of a run. */
export const RunStatus = z.enum(['queued', 'running', 'completed', 'waiting', 'failed', 'cancelled']);

const RunPath = z.object({ runId: RunId });
const INVALID_RUN_ID = { code: ApiErrorCodes.INVALID_RUN_ID, message: 'runId is invalid' };

/** One event of a run as its stream sends it (`data:`), also what `event:` and `id:` repeat. */
export const RunEvent = RunEventEnvelope.meta({
  id: 'RunEvent',
  description: 'One run event: `type` says which, `data` holds its fields (docs/api.md#streaming).',
});

const ChildRun = z.object({
  runId: z.string(),
  conversationId: z.string(),
  role: z.string(),
  callId: z.string().nullable(),
  toolScope: z
    .array(z.string())
    .nullable()
    .optional()
    .meta({ description: 'The only tools the child run may use, when its plan subtask named one.' }),
  status: z.string(),
  stopReason: z.string().nullable(),
  createdAt: Timestamp,
  finishedAt: OptionalTimestamp,
});

const RunDetail = z
  .object({
    runId: z.string(),
    conversationId: z.string(),
    status: RunStatus,
    stopReason: z.string().nullable(),
    source: z
      .string()
      .meta({ description: 'Who started the run: user, trigger, child or notice (as in the run listing).' }),
    profile: z
      .string()
      .meta({ description: 'The agent the run runs under, as the message named it (`agent` or `profile`).' }),
    agent: RunAgent.optional(),
    overrides: RunOverrides.nullable()
      .optional()
      .meta({ description: "The run's overrides (the message's `overrides`); null when none." }),
    subject: z.string().nullable().optional().meta({ description: "The end user the run is for (the token's `sub`)." }),
    stopRequested: z.enum(['interrupt', 'rollback']).nullable().optional().meta({
      description:
        'Set when a newer message asked the run to stop (its `multitask`, docs/conversations.md): `interrupt` or `rollback`.',
    }),
    stoppedBy: z.string().nullable().optional().meta({ description: 'The run of the message that asked it to stop.' }),
    createdAt: OptionalTimestamp,
    startedAt: OptionalTimestamp.meta({
      description: 'When an orchestrator first took the run up; null while it waits in the queue.',
    }),
    finishedAt: OptionalTimestamp,
    traceId: z.string().nullable().meta({ description: "The run's trace, for a trace viewer (Jaeger, Tempo)." }),
    result: z.unknown().meta({
      description:
        "The turn's result once finished (the shape of a message's answer; `output` holds a structured answer, `error.issues` why one was refused); null before.",
    }),
    transcript: z.array(z.unknown()).meta({
      description:
        'Each step: model calls with their request-view diagnostics, tool calls with arguments, result, status, duration and runner.',
    }),
    rootConversationId: z.string().optional(),
    parentRunId: z.string().nullable().optional(),
    parentCallId: z.string().nullable().optional(),
    chain: z
      .array(z.string())
      .optional()
      .meta({ description: "The profiles from the team's root run down to this one." }),
    depth: z.number().int().min(0).optional(),
    toolScope: z.array(z.string()).nullable().optional().meta({
      description: "The only tools a plan subtask's child run may use, when its subtask named one; else null.",
    }),
    children: z
      .array(ChildRun)
      .optional()
      .meta({ description: 'Runs this run delegated to (docs/plans-and-teams.md).' }),
    plan: z.unknown().optional().meta({ description: "The run's plan, once it has one (docs/plans-and-teams.md)." }),
    replayOf: z.string().nullable().optional().meta({
      description: 'Set for a replay: the run it replays (docs/conversations.md#replaying-a-run).',
    }),
    replayFromStep: z.number().int().min(0).nullable().optional().meta({
      description: "A replay's first live step: the steps before it were answered from the original's journal.",
    }),
    replays: z.array(z.string()).optional().meta({ description: 'The runs that replay this one, oldest first.' }),
    protocol: RunProtocolField.optional(),
  })
  .meta({ id: 'RunDetail' });

export const runOperations = {
  getRun: defineOperation({
    method: 'GET',
    path: '/v1/runs/{runId}',
    operationId: 'getRun',
    summary: 'A run: status, result, transcript, delegation and plan',
    tags: ['runs'],
    access: 'tenant',
    role: 'viewer',
    params: RunPath,
    invalid: { params: INVALID_RUN_ID },
    responses: {
      200: {
        description: 'The run.',
        body: RunDetail,
        examples: {
          finished: {
            runId: 'run_1',
            conversationId: 'conv-1',
            status: 'completed',
            stopReason: 'final_answer',
            source: 'user',
            profile: 'support-bot',
            agent: { id: 'agt_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01', version: 2 },
            overrides: { maxTurns: 4 },
            subject: 'alice',
            createdAt: '2026-06-01T09:30:00.000Z',
            startedAt: '2026-06-01T09:30:00.010Z',
            finishedAt: '2026-06-01T09:30:02.000Z',
            traceId: null,
            result: { response: '4' },
            transcript: [],
          },
        },
      },
    },
    errors: { 404: ['RUN_NOT_FOUND'] },
  }),
  watchRun: defineOperation({
    method: 'GET',
    path: '/v1/runs/{runId}/events',
    operationId: 'watchRunEvents',
    summary: "Watch a run's events (SSE), resuming after Last-Event-ID",
    description:
      'Every event from the start, or after `Last-Event-ID` (or `?after=`) when reconnecting; the stream ends after `execution_end`.',
    tags: ['runs'],
    access: 'tenant',
    role: 'viewer',
    params: RunPath,
    query: z.object({
      after: z
        .string()
        .optional()
        .meta({ description: 'Resume after this event id (as `Last-Event-ID`); not an integer > 0 counts as 0.' }),
    }),
    headers: z.object({
      'Last-Event-ID': z.string().optional().meta({ description: 'The id of the last event the client got.' }),
    }),
    invalid: { params: INVALID_RUN_ID },
    responses: {
      200: { description: "The run's events.", events: RunEvent, headers: z.object({ 'x-run-id': z.string() }) },
    },
    errors: { 404: ['RUN_NOT_FOUND'], 429: ['QUOTA_EXCEEDED'] },
  }),
  cancelRun: defineOperation({
    method: 'DELETE',
    path: '/v1/runs/{runId}',
    operationId: 'cancelRun',
    summary: 'Cancel a run',
    tags: ['runs'],
    access: 'tenant',
    role: 'member',
    params: RunPath,
    invalid: { params: INVALID_RUN_ID },
    responses: {
      202: {
        description: 'Cancellation accepted.',
        body: z.object({ runId: z.string(), status: z.string() }),
        examples: { accepted: { runId: 'run_1', status: 'cancelled' } },
      },
    },
    errors: { 404: ['RUN_NOT_FOUND'], 409: ['RUN_FINISHED'] },
  }),
};

/** Reading a run (status, result, transcript), watching its events, and cancelling it. */
export function registerRunRoutes(router: OperationRouter, options: RunRoutesOptions): void {
  router.add(runOperations.getRun, async ({ params, request }) => {
    const { tenantId } = principalOf(request);
    const run = await options.orchestrator.getRun({ tenantId, runId: params.runId });
    return {
      status: 200,
      body: {
        runId: run.runId,
        conversationId: run.conversationId,
        status: run.status as z.infer<typeof RunStatus>,
        stopReason: run.stopReason || null,
        // An older orchestrator sends neither: a user's run under an unnamed profile.
        source: run.source || 'user',
        profile: run.profile,
        agent: runAgentOf(run.agentId ?? '', run.agentVersion ?? 0),
        overrides: run.overridesJson ? (JSON.parse(run.overridesJson) as RunOverrides) : null,
        subject: run.subject || null,
        stopRequested: run.stopRequested === 'interrupt' || run.stopRequested === 'rollback' ? run.stopRequested : null,
        stoppedBy: run.stoppedBy || null,
        createdAt: run.createdAt?.toISOString() ?? null,
        startedAt: run.startedAt?.toISOString() ?? null,
        finishedAt: run.finishedAt?.toISOString() ?? null,
        traceId: run.traceId || null,
        result: JSON.parse(run.resultJson) as unknown,
        transcript: JSON.parse(run.transcriptJson) as unknown[],
        // Older orchestrators send no delegation part.
        ...(run.delegationJson ? (JSON.parse(run.delegationJson) as Record<string, never>) : {}),
        ...(run.planJson ? { plan: JSON.parse(run.planJson) as unknown } : {}),
        replayOf: run.replayOf || null,
        replayFromStep: run.replayOf ? (run.replayFromStep ?? 0) : null,
        replays: run.replays,
        protocol: runProtocolOf(run.protocol),
      },
    };
  });

  // Watch a run: every event from the start, or after `Last-Event-ID` when reconnecting.
  router.add(runOperations.watchRun, async ({ params, request, reply }) => {
    const { tenantId } = principalOf(request);
    // Another tenant's run is a 404 before any event is read.
    const run = await options.orchestrator.getRun({ tenantId, runId: params.runId });
    const afterId = lastEventIdOf(request.headers['last-event-id'], request.query);
    const finished = run.status !== 'queued' && run.status !== 'running';
    // Counted before the stream opens, so a tenant at its quota gets a 429 in the envelope.
    const lease = await options.streams.acquire(principalOf(request));
    const stream = new SseStream(reply, options.sseHeartbeatMs, { 'x-run-id': params.runId });
    const closed = stream.closedSignal();
    try {
      // A finished run whose events are all seen (or no longer kept) has nothing more to send.
      const lastId = finished ? await options.events.lastId(run.runId) : undefined;
      if (lastId !== undefined && lastId <= afterId) return STREAMED;
      for await (const event of options.events.read(run.runId, afterId, closed)) {
        stream.send(event.type, event, event.id);
        // A finished run has no more events than it has now: stop at its last one even when that
        // is not `execution_end` (its holder died between recording the run and publishing the
        // end), rather than keep the client waiting for an event that will never come.
        if (lastId !== undefined && event.id >= lastId) break;
      }
    } catch (error) {
      if (!closed.aborted)
        stream.send('error', { error: { code: ApiErrorCodes.EVENTS_UNAVAILABLE, message: (error as Error).message } });
    } finally {
      stream.end();
      lease.release();
    }
    return STREAMED;
  });

  router.add(runOperations.cancelRun, async ({ params, request }) => {
    const { tenantId } = principalOf(request);
    const cancelled = await options.orchestrator.cancelRun({ tenantId, runId: params.runId });
    if (!cancelled.accepted)
      throw new HttpError(409, ApiErrorCodes.RUN_FINISHED, `the run already finished (${cancelled.status})`, {
        status: cancelled.status,
      });
    return { status: 202, body: { runId: cancelled.runId, status: cancelled.status } };
  });
}
