import { z } from 'zod';
import { keyToken } from './key-encoding.js';
import { TenantId } from './ids.js';

/**
 * External events for event triggers. Anyone may publish them on JetStream (stream
 * `TRIGGER_EVENTS`, subject `platform.trigger.events.<tenant token>`) or post them to
 * `POST /v1/events`; the trigger service matches them against the tenant's event tasks.
 */
export const TRIGGER_EVENT_SUBJECT_PREFIX = 'platform.trigger.events';
export const TRIGGER_EVENTS_STREAM = 'TRIGGER_EVENTS';

/** The subject one tenant's external events are published on. */
export function triggerEventSubject(tenantId: string): string {
  return `${TRIGGER_EVENT_SUBJECT_PREFIX}.${keyToken(tenantId)}`;
}

/** Where an event comes from and what it is: short, stable names (`gmail`, `email.received`). */
export const EventName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/, 'must be 1-100 letters, digits, ".", "_", ":", "/" or "-"');
export type EventName = z.infer<typeof EventName>;

/**
 * One external event. `eventId` dedupes: an event delivered twice (a publisher retry, a
 * redelivery) fires each matching task once. Absent, the receiver assigns one.
 */
export const ExternalEvent = z
  .object({
    eventId: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'must be 1-128 letters, digits, ".", "_", ":" or "-"')
      .optional(),
    source: EventName,
    type: EventName,
    data: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type ExternalEvent = z.infer<typeof ExternalEvent>;

/** An external event as published on JetStream: the tenant travels in the body (and the subject). */
export const PublishedExternalEvent = ExternalEvent.extend({ tenantId: TenantId });
export type PublishedExternalEvent = z.infer<typeof PublishedExternalEvent>;

/**
 * The end of a run a trigger task's message started (the orchestrator publishes it for runs whose
 * message has source `trigger`, e.g. the run that resumed after the user approved): stream
 * `TRIGGER_RUNS` (created by the trigger service), subject `platform.trigger.runs.<tenant token>`,
 * message id the run id. The trigger service settles the task's fire waiting for approval with it.
 */
export const TRIGGERED_RUN_SUBJECT_PREFIX = 'platform.trigger.runs';
export const TRIGGERED_RUNS_STREAM = 'TRIGGER_RUNS';

export function triggeredRunSubject(tenantId: string): string {
  return `${TRIGGERED_RUN_SUBJECT_PREFIX}.${keyToken(tenantId)}`;
}

export const TriggeredRunFinished = z.object({
  tenantId: TenantId,
  taskId: z.string().min(1),
  triggerType: z.string(),
  runId: z.string().min(1),
  conversationId: z.string().min(1),
  /** The run's status: completed, waiting, failed or cancelled. */
  status: z.string(),
  stopReason: z.string(),
  response: z.string(),
  turns: z.number().int().nonnegative(),
  /** The approval this run decided, when it was a decision (approvals API). */
  approvalId: z.string().default(''),
  /** For a decision on a triggered run's approval: the run that asked for it (the fire's run). */
  originRunId: z.string().default(''),
  finishedAt: z.string(),
});
export type TriggeredRunFinished = z.infer<typeof TriggeredRunFinished>;
