import { RunId } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RunEvents } from '../events/run-event-reader.js';
import { lastEventIdOf, SseStream } from '../events/sse.js';
import { HttpError } from '../http-errors.js';
import { principalOf } from '../principal.js';

export interface RunRoutesOptions {
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
  events: RunEvents;
  sseHeartbeatMs: number;
}

function runIdOf(request: FastifyRequest): string {
  const runId = RunId.safeParse((request.params as { runId?: unknown }).runId);
  if (!runId.success) throw new HttpError(400, 'INVALID_RUN_ID', 'runId is invalid');
  return runId.data;
}

/** Reading a run (status, result, transcript), watching its events, and cancelling it. */
export function registerRunRoutes(app: FastifyInstance, options: RunRoutesOptions): void {
  app.get('/v1/runs/:runId', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const run = await options.orchestrator.getRun({ tenantId, runId: runIdOf(request) });
    return reply.send({
      runId: run.runId,
      conversationId: run.conversationId,
      status: run.status,
      stopReason: run.stopReason || null,
      createdAt: run.createdAt?.toISOString() ?? null,
      finishedAt: run.finishedAt?.toISOString() ?? null,
      traceId: run.traceId || null,
      result: JSON.parse(run.resultJson) as unknown,
      transcript: JSON.parse(run.transcriptJson) as unknown,
      // Older orchestrators send no delegation part.
      ...(run.delegationJson ? (JSON.parse(run.delegationJson) as Record<string, unknown>) : {}),
      ...(run.planJson ? { plan: JSON.parse(run.planJson) as unknown } : {}),
    });
  });

  // Watch a run: every event from the start, or after `Last-Event-ID` when reconnecting.
  app.get('/v1/runs/:runId/events', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const runId = runIdOf(request);
    // Another tenant's run is a 404 before any event is read.
    const run = await options.orchestrator.getRun({ tenantId, runId });
    const afterId = lastEventIdOf(request.headers['last-event-id'], request.query);
    const finished = run.status !== 'queued' && run.status !== 'running';
    const stream = new SseStream(reply, options.sseHeartbeatMs, { 'x-run-id': runId });
    const closed = stream.closedSignal();
    try {
      // A finished run whose events are all seen (or no longer kept) has nothing more to send.
      const lastId = finished ? await options.events.lastId(run.runId) : undefined;
      if (lastId !== undefined && lastId <= afterId) return reply;
      for await (const event of options.events.read(run.runId, afterId, closed)) {
        stream.send(event.type, event, event.id);
        // A finished run has no more events than it has now: stop at its last one even when that
        // is not `execution_end` (its holder died between recording the run and publishing the
        // end), rather than keep the client waiting for an event that will never come.
        if (lastId !== undefined && event.id >= lastId) break;
      }
    } catch (error) {
      if (!closed.aborted) stream.send('error', { error: { code: 'EVENTS_UNAVAILABLE', message: (error as Error).message } });
    } finally {
      stream.end();
    }
    return reply;
  });

  app.delete('/v1/runs/:runId', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const cancelled = await options.orchestrator.cancelRun({ tenantId, runId: runIdOf(request) });
    if (!cancelled.accepted) throw new HttpError(409, 'RUN_FINISHED', `the run already finished (${cancelled.status})`, { status: cancelled.status });
    return reply.code(202).send({ runId: cancelled.runId, status: cancelled.status });
  });
}
