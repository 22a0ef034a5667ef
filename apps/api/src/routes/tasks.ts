import type { triggerV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError } from '../http-errors.js';

import { NextPageToken } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import type { EventRateQuota } from '../quotas/event-rate.js';
import { ApiErrorCodes } from '../error-codes.js';
import {
  CreatedTask,
  EventBody,
  FIRE_EXAMPLE,
  Fire,
  INVALID_TASK_SPEC,
  IdempotencyHeader,
  IdempotencyKey,
  PageQuery,
  TASK_ERRORS,
  TASK_EXAMPLE,
  TASK_SPEC_EXAMPLE,
  Task,
  TaskPath,
  TaskReply,
  TaskSpecBody,
  fireBody,
  taskBody,
} from './task-bodies.js';

type TriggerClient = PromiseClient<triggerV1.TriggerServiceClient>;

export interface TaskRoutesOptions {
  trigger: TriggerClient;
  /** The tenant's events_per_minute quota (POST /v1/events). */
  eventRate: EventRateQuota;
}

export const taskOperations = {
  createTask: defineOperation({
    method: 'POST',
    path: '/v1/tasks',
    operationId: 'createTask',
    summary: 'Create a task (a trigger and what it does)',
    tags: ['tasks'],
    access: 'tenant',
    role: 'member',
    body: TaskSpecBody,
    headers: IdempotencyHeader,
    invalid: INVALID_TASK_SPEC,
    bodyExamples: { schedule: TASK_SPEC_EXAMPLE },
    responses: {
      201: { description: 'Created.', body: CreatedTask, examples: { created: TASK_EXAMPLE } },
      200: { description: 'A retry with the same Idempotency-Key: the task it created.', body: CreatedTask },
    },
    errors: {
      400: [
        'INVALID_TASK_SPEC',
        'EGRESS_REFUSED',
        'CONDITION_TOOL_NOT_ALLOWED',
        'EXECUTOR_NOT_ALLOWED',
        'INVALID_IDEMPOTENCY_KEY',
      ],
      429: ['QUOTA_EXCEEDED'],
      503: ['UNAVAILABLE'],
    },
  }),
  listTasks: defineOperation({
    method: 'GET',
    path: '/v1/tasks',
    operationId: 'listTasks',
    summary: "The tenant's tasks",
    tags: ['tasks'],
    access: 'tenant',
    role: 'viewer',
    query: PageQuery,
    responses: {
      200: {
        description: 'A page of tasks.',
        body: z.object({ tasks: z.array(Task), nextPageToken: NextPageToken }),
        examples: { page: { tasks: [TASK_EXAMPLE], nextPageToken: null } },
      },
    },
    errors: { 400: ['INVALID_PAGE_TOKEN'], 503: ['UNAVAILABLE'] },
  }),
  getTask: defineOperation({
    method: 'GET',
    path: '/v1/tasks/{taskId}',
    operationId: 'getTask',
    summary: 'A task',
    tags: ['tasks'],
    access: 'tenant',
    role: 'viewer',
    params: TaskPath,
    responses: TaskReply,
    errors: TASK_ERRORS,
  }),
  updateTask: defineOperation({
    method: 'PUT',
    path: '/v1/tasks/{taskId}',
    operationId: 'updateTask',
    summary: "Replace a task's spec",
    tags: ['tasks'],
    access: 'tenant',
    role: 'member',
    params: TaskPath,
    body: TaskSpecBody,
    invalid: INVALID_TASK_SPEC,
    bodyExamples: { schedule: TASK_SPEC_EXAMPLE },
    responses: TaskReply,
    errors: {
      ...TASK_ERRORS,
      400: ['INVALID_TASK_SPEC', 'EGRESS_REFUSED', 'CONDITION_TOOL_NOT_ALLOWED', 'EXECUTOR_NOT_ALLOWED'],
      429: ['QUOTA_EXCEEDED'],
    },
  }),
  deleteTask: defineOperation({
    method: 'DELETE',
    path: '/v1/tasks/{taskId}',
    operationId: 'deleteTask',
    summary: 'Delete a task',
    tags: ['tasks'],
    access: 'tenant',
    role: 'member',
    params: TaskPath,
    responses: { 204: { description: 'Deleted.' } },
    errors: TASK_ERRORS,
  }),
  pauseTask: defineOperation({
    method: 'POST',
    path: '/v1/tasks/{taskId}/pause',
    operationId: 'pauseTask',
    summary: 'Pause a task',
    tags: ['tasks'],
    access: 'tenant',
    role: 'member',
    params: TaskPath,
    responses: TaskReply,
    errors: { ...TASK_ERRORS, 409: ['TASK_STATUS_CONFLICT'] },
  }),
  resumeTask: defineOperation({
    method: 'POST',
    path: '/v1/tasks/{taskId}/resume',
    operationId: 'resumeTask',
    summary: 'Resume a paused task',
    tags: ['tasks'],
    access: 'tenant',
    role: 'member',
    params: TaskPath,
    responses: TaskReply,
    errors: { ...TASK_ERRORS, 409: ['TASK_STATUS_CONFLICT'] },
  }),
  runTaskNow: defineOperation({
    method: 'POST',
    path: '/v1/tasks/{taskId}/run',
    operationId: 'runTaskNow',
    summary: 'Fire a task now',
    tags: ['tasks'],
    access: 'tenant',
    role: 'member',
    params: TaskPath,
    headers: IdempotencyHeader,
    responses: {
      202: { description: 'The fire, queued.', body: Fire, examples: { queued: FIRE_EXAMPLE } },
      200: { description: 'A retry with the same Idempotency-Key: the fire it made.', body: Fire },
    },
    errors: { ...TASK_ERRORS, 400: ['INVALID_IDEMPOTENCY_KEY'], 409: ['TASK_STATUS_CONFLICT'] },
  }),
  listFires: defineOperation({
    method: 'GET',
    path: '/v1/tasks/{taskId}/fires',
    operationId: 'listFires',
    summary: "A task's fire history, newest first",
    tags: ['tasks'],
    access: 'tenant',
    role: 'viewer',
    params: TaskPath,
    query: PageQuery,
    responses: {
      200: {
        description: 'A page of fires.',
        body: z.object({ fires: z.array(Fire), nextPageToken: NextPageToken }),
        examples: { page: { fires: [FIRE_EXAMPLE], nextPageToken: null } },
      },
    },
    errors: { ...TASK_ERRORS, 400: ['INVALID_PAGE_TOKEN'] },
  }),
  publishEvent: defineOperation({
    method: 'POST',
    path: '/v1/events',
    operationId: 'publishEvent',
    summary: 'Publish an external event for event triggers',
    tags: ['tasks'],
    access: 'tenant',
    role: 'member',
    body: EventBody,
    invalid: { body: { code: ApiErrorCodes.INVALID_EVENT } },
    bodyExamples: { mail: { source: 'gmail', type: 'message_received', data: { from: 'boss@example.com' } } },
    responses: {
      202: {
        description: 'Accepted; the tasks it fired.',
        body: z.object({ eventId: z.string(), firedTaskIds: z.array(z.string()) }),
        examples: { fired: { eventId: 'evt_1', firedTaskIds: ['task_1'] } },
      },
    },
    errors: { 429: ['QUOTA_EXCEEDED'], 503: ['UNAVAILABLE'] },
  }),
};

function idempotencyKeyOf(request: FastifyRequest): string {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return '';
  const parsed = IdempotencyKey.safeParse(header);
  if (!parsed.success)
    throw new HttpError(400, ApiErrorCodes.INVALID_IDEMPOTENCY_KEY, 'idempotency-key must be 1-200 characters');
  return parsed.data;
}

/**
 * Tasks of the trigger service: CRUD, pause / resume / run now, a task's fire history, and
 * external events for event triggers. The
 * body of POST and PUT is the task spec (docs/triggers.md); the trigger service validates it and
 * names the field at fault. Another tenant's task is 404, exactly like a missing one.
 */
export function registerTaskRoutes(router: OperationRouter, { trigger, eventRate }: TaskRoutesOptions): void {
  router.add(taskOperations.createTask, async ({ body, request }) => {
    const principal = principalOf(request);
    const { task, duplicate, webhookSecret } = await trigger.createTask({
      tenantId: principal.tenantId,
      userId: principal.subject ?? '',
      specJson: JSON.stringify(body),
      requestId: idempotencyKeyOf(request),
      tier: principal.tier ?? '',
    });
    // The webhook signing secret is shown at creation only.
    return { status: duplicate ? 200 : 201, body: { ...taskBody(task!), ...(webhookSecret ? { webhookSecret } : {}) } };
  });

  router.add(taskOperations.listTasks, async ({ query, request }) => {
    const page = await trigger.listTasks({
      tenantId: principalOf(request).tenantId,
      pageSize: query.pageSize ?? 0,
      pageToken: query.pageToken ?? '',
    });
    return { status: 200, body: { tasks: page.tasks.map(taskBody), nextPageToken: page.nextPageToken || null } };
  });

  router.add(taskOperations.getTask, async ({ params, request }) => {
    const { task } = await trigger.getTask({ tenantId: principalOf(request).tenantId, taskId: params.taskId });
    return { status: 200, body: taskBody(task!) };
  });

  router.add(taskOperations.updateTask, async ({ params, body, request }) => {
    const principal = principalOf(request);
    const { task } = await trigger.updateTask({
      tenantId: principal.tenantId,
      taskId: params.taskId,
      specJson: JSON.stringify(body),
      tier: principal.tier ?? '',
    });
    return { status: 200, body: taskBody(task!) };
  });

  router.add(taskOperations.deleteTask, async ({ params, request }) => {
    await trigger.deleteTask({ tenantId: principalOf(request).tenantId, taskId: params.taskId });
    return { status: 204 };
  });

  router.add(taskOperations.pauseTask, async ({ params, request }) => {
    const { task } = await trigger.pauseTask({ tenantId: principalOf(request).tenantId, taskId: params.taskId });
    return { status: 200, body: taskBody(task!) };
  });

  router.add(taskOperations.resumeTask, async ({ params, request }) => {
    const { task } = await trigger.resumeTask({ tenantId: principalOf(request).tenantId, taskId: params.taskId });
    return { status: 200, body: taskBody(task!) };
  });

  router.add(taskOperations.runTaskNow, async ({ params, request }) => {
    const { fire, duplicate } = await trigger.runTaskNow({
      tenantId: principalOf(request).tenantId,
      taskId: params.taskId,
      requestId: idempotencyKeyOf(request),
    });
    return { status: duplicate ? 200 : 202, body: fireBody(fire!) };
  });

  router.add(taskOperations.publishEvent, async ({ body, request }) => {
    const principal = principalOf(request);
    await eventRate.consume(principal);
    const published = await trigger.publishEvent({
      tenantId: principal.tenantId,
      eventId: body.eventId ?? '',
      source: body.source,
      type: body.type,
      dataJson: JSON.stringify(body.data),
    });
    return { status: 202, body: { eventId: published.eventId, firedTaskIds: published.firedTaskIds } };
  });

  router.add(taskOperations.listFires, async ({ params, query, request }) => {
    const page = await trigger.listFires({
      tenantId: principalOf(request).tenantId,
      taskId: params.taskId,
      pageSize: query.pageSize ?? 0,
      pageToken: query.pageToken ?? '',
    });
    return { status: 200, body: { fires: page.fires.map(fireBody), nextPageToken: page.nextPageToken || null } };
  });
}
