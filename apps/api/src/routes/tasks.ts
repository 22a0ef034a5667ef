import type { triggerV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError, parseInput } from '../http-errors.js';
import { principalOf } from '../principal.js';

export type TriggerClient = PromiseClient<triggerV1.TriggerServiceClient>;

export interface TaskRoutesOptions {
  trigger: TriggerClient;
}

const PageQuery = z
  .object({
    pageSize: z.coerce.number().int().min(1).max(500).optional(),
    pageToken: z.string().max(1_000).optional(),
  })
  .strict();

const IdempotencyKey = z.string().min(1).max(200);

/** An external event (POST /v1/events); the trigger service checks names and size. */
const EventBody = z
  .object({
    eventId: z.string().min(1).max(128).optional(),
    source: z.string().min(1).max(100),
    type: z.string().min(1).max(100),
    data: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

const iso = (date: Date | undefined): string | null => date?.toISOString() ?? null;

/** A task as clients see it: the spec they wrote (with defaults filled in) and its state. */
export function taskBody(task: triggerV1.Task): Record<string, unknown> {
  return {
    taskId: task.taskId,
    name: task.name,
    status: task.status,
    spec: JSON.parse(task.specJson) as unknown,
    nextFireAt: iso(task.nextFireAt),
    lastFireAt: iso(task.lastFireAt),
    lastOutcome: task.lastOutcome || null,
    userId: task.userId || null,
    createdAt: iso(task.createdAt),
    updatedAt: iso(task.updatedAt),
  };
}

/** A fire as clients see it. */
export function fireBody(fire: triggerV1.Fire): Record<string, unknown> {
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

function taskIdOf(request: FastifyRequest): string {
  return (request.params as { taskId?: string }).taskId ?? '';
}

function idempotencyKeyOf(request: FastifyRequest): string {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return '';
  const parsed = IdempotencyKey.safeParse(header);
  if (!parsed.success) throw new HttpError(400, 'INVALID_IDEMPOTENCY_KEY', 'idempotency-key must be 1-200 characters');
  return parsed.data;
}

function specJsonOf(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'INVALID_TASK_SPEC', 'the body must be a task spec object');
  return JSON.stringify(body);
}

/**
 * Tasks of the trigger service: CRUD, pause / resume / run now, a task's fire history, and
 * external events for event triggers. The
 * body of POST and PUT is the task spec (docs/triggers.md); the trigger service validates it and
 * names the field at fault. Another tenant's task is 404, exactly like a missing one.
 */
export function registerTaskRoutes(app: FastifyInstance, { trigger }: TaskRoutesOptions): void {
  app.post('/v1/tasks', async (request, reply) => {
    const principal = principalOf(request);
    const { task, duplicate, webhookSecret } = await trigger.createTask({ tenantId: principal.tenantId, userId: principal.subject ?? '', specJson: specJsonOf(request.body), requestId: idempotencyKeyOf(request) });
    // The webhook signing secret is shown at creation only.
    return reply.code(duplicate ? 200 : 201).send({ ...taskBody(task!), ...(webhookSecret ? { webhookSecret } : {}) });
  });

  app.get('/v1/tasks', async (request, reply) => {
    const query = parseInput(PageQuery, request.query, 'INVALID_QUERY');
    const page = await trigger.listTasks({ tenantId: principalOf(request).tenantId, pageSize: query.pageSize ?? 0, pageToken: query.pageToken ?? '' });
    return reply.send({ tasks: page.tasks.map(taskBody), nextPageToken: page.nextPageToken || null });
  });

  app.get('/v1/tasks/:taskId', async (request, reply) => {
    const { task } = await trigger.getTask({ tenantId: principalOf(request).tenantId, taskId: taskIdOf(request) });
    return reply.send(taskBody(task!));
  });

  app.put('/v1/tasks/:taskId', async (request, reply) => {
    const { task } = await trigger.updateTask({ tenantId: principalOf(request).tenantId, taskId: taskIdOf(request), specJson: specJsonOf(request.body) });
    return reply.send(taskBody(task!));
  });

  app.delete('/v1/tasks/:taskId', async (request, reply) => {
    await trigger.deleteTask({ tenantId: principalOf(request).tenantId, taskId: taskIdOf(request) });
    return reply.code(204).send();
  });

  app.post('/v1/tasks/:taskId/pause', async (request, reply) => {
    const { task } = await trigger.pauseTask({ tenantId: principalOf(request).tenantId, taskId: taskIdOf(request) });
    return reply.send(taskBody(task!));
  });

  app.post('/v1/tasks/:taskId/resume', async (request, reply) => {
    const { task } = await trigger.resumeTask({ tenantId: principalOf(request).tenantId, taskId: taskIdOf(request) });
    return reply.send(taskBody(task!));
  });

  app.post('/v1/tasks/:taskId/run', async (request, reply) => {
    const { fire, duplicate } = await trigger.runTaskNow({ tenantId: principalOf(request).tenantId, taskId: taskIdOf(request), requestId: idempotencyKeyOf(request) });
    return reply.code(duplicate ? 200 : 202).send(fireBody(fire!));
  });

  app.post('/v1/events', async (request, reply) => {
    const event = parseInput(EventBody, request.body, 'INVALID_EVENT');
    const published = await trigger.publishEvent({ tenantId: principalOf(request).tenantId, eventId: event.eventId ?? '', source: event.source, type: event.type, dataJson: JSON.stringify(event.data) });
    return reply.code(202).send({ eventId: published.eventId, firedTaskIds: published.firedTaskIds });
  });

  app.get('/v1/tasks/:taskId/fires', async (request, reply) => {
    const query = parseInput(PageQuery, request.query, 'INVALID_QUERY');
    const page = await trigger.listFires({ tenantId: principalOf(request).tenantId, taskId: taskIdOf(request), pageSize: query.pageSize ?? 0, pageToken: query.pageToken ?? '' });
    return reply.send({ fires: page.fires.map(fireBody), nextPageToken: page.nextPageToken || null });
  });
}
