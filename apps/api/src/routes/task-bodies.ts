import { TaskSpec } from '@platform/contracts';
import type { triggerV1 } from '@platform/proto';
import { z } from 'zod';
import { JsonObject, OptionalTimestamp } from '../openapi/common-schemas.js';
import { ApiErrorCodes } from '../error-codes.js';

// The task and fire bodies of the task routes (tasks.ts): their schemas, examples and mapping from
// the trigger service's messages.

export const PageQuery = z
  .object({
    pageSize: z.coerce.number().int().min(1).max(500).optional(),
    pageToken: z.string().max(1_000).optional(),
  })
  .strict();

export const IdempotencyKey = z.string().min(1).max(200);

/** An external event (POST /v1/events); the trigger service checks names and size. */
export const EventBody = z
  .object({
    eventId: z.string().min(1).max(128).optional(),
    source: z.string().min(1).max(100),
    type: z.string().min(1).max(100),
    data: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

const iso = (date: Date | undefined): string | null => date?.toISOString() ?? null;

/** A task as clients see it: the spec they wrote (with defaults filled in) and its state. */
export const Task = z
  .object({
    taskId: z.string(),
    name: z.string(),
    status: z.string().meta({ description: 'active, paused or completed.' }),
    spec: JsonObject.meta({ description: 'The task spec (docs/triggers.md), defaults filled in.' }),
    nextFireAt: OptionalTimestamp,
    lastFireAt: OptionalTimestamp,
    lastOutcome: z.string().nullable(),
    lastError: z
      .object({
        code: z.string().meta({ description: 'FILTER_INPUT_TOO_LONG or FILTER_EVALUATION_FAILED (docs/triggers.md).' }),
        message: z.string(),
        at: OptionalTimestamp,
      })
      .nullable()
      .meta({
        description:
          "The last time the task's filter failed on an event (the event did not fire it), and why; null when none failed since its spec was set.",
      }),
    userId: z.string().nullable(),
    createdAt: OptionalTimestamp,
    updatedAt: OptionalTimestamp,
  })
  .meta({ id: 'Task' });

export const CreatedTask = Task.extend({
  webhookSecret: z.string().optional().meta({ description: 'The webhook signing secret: shown at creation only.' }),
});

/** A fire as clients see it. */
export const Fire = z
  .object({
    fireId: z.string(),
    taskId: z.string(),
    kind: z.string(),
    scheduledAt: OptionalTimestamp,
    status: z.string(),
    attempts: z.number().int(),
    missedCount: z.number().int(),
    runId: z.string().nullable(),
    result: z
      .unknown()
      .meta({ description: "The fire's result (a run's turn response, or a custom executor's), null until done." }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    startedAt: OptionalTimestamp,
    finishedAt: OptionalTimestamp,
  })
  .meta({ id: 'Fire' });

/**
 * The body of POST and PUT: the task spec (docs/triggers.md), checked here with its shape and
 * rules, and by the trigger service again with its engines (a cron pattern it can schedule,
 * filter and condition expressions it can compile), which name the field the same way.
 */
export const TaskSpecBody = TaskSpec.meta({
  id: 'TaskSpec',
  description:
    'A task (docs/triggers.md): its trigger (schedule, event or condition), what it does, where its results go.',
});
export const INVALID_TASK_SPEC = { body: { code: ApiErrorCodes.INVALID_TASK_SPEC, issues: true } } as const;

export const TASK_SPEC_EXAMPLE = {
  name: 'morning brief',
  trigger: { type: 'schedule', cron: '0 8 * * 1-5', timeZone: 'Europe/Berlin' },
  action: { instruction: 'Summarize my unread email.' },
  output: { channel: 'sse' },
};
export const TASK_EXAMPLE: z.infer<typeof Task> = {
  taskId: 'task_1',
  name: 'morning brief',
  status: 'active',
  spec: { ...TASK_SPEC_EXAMPLE, misfire: { policy: 'fire_once' }, executor: 'orchestrator' },
  nextFireAt: '2026-06-02T06:00:00.000Z',
  lastFireAt: null,
  lastOutcome: null,
  lastError: null,
  userId: 'alice',
  createdAt: '2026-06-01T09:30:00.000Z',
  updatedAt: '2026-06-01T09:30:00.000Z',
};
export const FIRE_EXAMPLE: z.infer<typeof Fire> = {
  fireId: 'fire_1',
  taskId: 'task_1',
  kind: 'manual',
  scheduledAt: '2026-06-01T09:31:00.000Z',
  status: 'pending',
  attempts: 0,
  missedCount: 0,
  runId: null,
  result: null,
  error: null,
  startedAt: null,
  finishedAt: null,
};

export const TaskPath = z.object({ taskId: z.string() });
export const IdempotencyHeader = z.object({
  'Idempotency-Key': IdempotencyKey.optional().meta({
    description: 'A retry with the same key answers the first result (200) instead of acting again.',
  }),
});
export const TASK_ERRORS = { 404: ['TASK_NOT_FOUND'], 503: ['UNAVAILABLE'] } as const;
export const TaskReply = { 200: { description: 'The task.', body: Task, examples: { task: TASK_EXAMPLE } } } as const;
/** A task as clients see it. */
export function taskBody(task: triggerV1.Task): z.infer<typeof Task> {
  return {
    taskId: task.taskId,
    name: task.name,
    status: task.status,
    spec: JSON.parse(task.specJson) as Record<string, unknown>,
    nextFireAt: iso(task.nextFireAt),
    lastFireAt: iso(task.lastFireAt),
    lastOutcome: task.lastOutcome || null,
    lastError: task.lastError
      ? { code: task.lastError.code, message: task.lastError.message, at: iso(task.lastError.at) }
      : null,
    userId: task.userId || null,
    createdAt: iso(task.createdAt),
    updatedAt: iso(task.updatedAt),
  };
}

/** A fire as clients see it. */
export function fireBody(fire: triggerV1.Fire): z.infer<typeof Fire> {
  return {
    fireId: fire.fireId,
    taskId: fire.taskId,
    kind: fire.kind,
    scheduledAt: iso(fire.scheduledAt),
    status: fire.status,
    attempts: fire.attempts,
    missedCount: fire.missedCount,
    runId: fire.runId || null,
    result: fire.resultJson ? (JSON.parse(fire.resultJson) as unknown) : null,
    error: fire.errorCode ? { code: fire.errorCode, message: fire.errorMessage } : null,
    startedAt: iso(fire.startedAt),
    finishedAt: iso(fire.finishedAt),
  };
}
