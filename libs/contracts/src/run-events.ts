import { z } from 'zod';
import { keyToken } from './key-encoding.js';
import { ConversationId, RunId, TenantId } from './ids.js';

/**
 * Run events as clients receive them (SSE) and as they are kept: every event of a run is a
 * message on the run's own subject in one JetStream stream, numbered 1, 2, 3... per run, so
 * several clients can watch a run and a client that reconnects with the last id it saw
 * receives exactly the events it missed.
 */
export const RUN_EVENTS_STREAM = 'PLATFORM_RUN_EVENTS';
export const RUN_EVENTS_SUBJECT_PREFIX = 'platform.run-events';

/** Run ids in subjects: the api issues them as `run_<uuid>`; anything else cannot be a subject token. */
export const SUBJECT_SAFE_RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function runEventsSubject(runId: string): string {
  if (!SUBJECT_SAFE_RUN_ID.test(runId)) throw new Error(`run id '${runId}' cannot name an event subject`);
  return `${RUN_EVENTS_SUBJECT_PREFIX}.${keyToken(runId)}`; // the run id itself, for these ids
}

/** Event names (seed 000 section 10). `execution_end` is always the last event of a run. */
export const RunEventType = z.enum([
  'execution_start',
  'message_start',
  'message_chunk',
  'message_end',
  // A piece of a tool call's arguments as the model writes them (streamed runs only): `callId`,
  // `index` (its position in the message), `name` and `delta`; the call's first has an empty delta.
  'tool_call_args_delta',
  'tool_call_start',
  'tool_result',
  'state_change',
  'iteration_complete',
  'hook_error',
  // A step failed, classified (docs/operations.md, "Failure classes"): `data.failure` holds its
  // class, kind, severity and recovery; `step` is `model` or `tool`.
  'step_failed',
  'execution_end',
  // A delegation started a child run, one of the child's own events (as `data.event`), and the
  // child's end; each names the child run (`childRunId`) and its role (docs/plans-and-teams.md).
  'child_run_started',
  'child_run_event',
  'child_run_finished',
  // A plan-and-execute run's plan changed (`data.plan`: the plan as GET /v1/runs/{id} shows it).
  'plan_updated',
]);
export type RunEventType = z.infer<typeof RunEventType>;

/** The envelope of a stored event; `data` holds the event's own fields. */
export const RunEventEnvelope = z.object({
  id: z.number().int().positive(),
  runId: z.string(),
  type: RunEventType,
  at: z.number(),
  data: z.record(z.string(), z.unknown()),
});
export type RunEventEnvelope = z.infer<typeof RunEventEnvelope>;

/**
 * The run-ended notice: published (core NATS, fire-and-forget) by the orchestrator once a run's
 * `execution_end` went out, on `platform.run-ended.<tenant token>`. Services that keep per-run
 * state (the memory service's working memory) drop it on this signal; they also expire it by
 * age, because a notice sent while they were down is not kept.
 */
export const RUN_ENDED_SUBJECT_PREFIX = 'platform.run-ended';

export function runEndedSubject(tenantId: string): string {
  return `${RUN_ENDED_SUBJECT_PREFIX}.${keyToken(tenantId)}`;
}

export const RunEnded = z.object({
  type: z.literal('run.ended'),
  tenantId: TenantId,
  runId: RunId,
  conversationId: ConversationId,
  /** The loop's stop reason (`final_answer`, `agent_waiting`, `cancelled`...). */
  stopReason: z.string().max(64),
  endedAt: z.string().datetime(),
});
export type RunEnded = z.infer<typeof RunEnded>;
