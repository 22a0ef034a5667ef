import { ExternalEvent } from '@platform/contracts';
import { EGRESS_REFUSED, egressRefusalOf, type EgressGuard } from '@platform/egress';
import type { triggerV1 } from '@platform/proto';
import { errors, parseOrReject, tenantOf, unaryHandler, type Logger } from '@platform/service-kit';
import { z } from 'zod';
import type { Clock } from './clock.js';
import type { FilterLimits } from './event-filter.js';
import type { EventRouter } from './event-router.js';
import type { FireStore } from './fire-store.js';
import type { NotificationFeed } from './notifications/notification-feed.js';
import type { OrchestratorTools } from './orchestrator-tools.js';
import { parseTaskSpec, type TaskSpec } from './task-spec.js';
import type { TaskQuotas } from './task-quotas.js';
import type { TaskStore } from './task-store.js';
import { fireView, taskView } from './task-views.js';
import { ErrorCodes } from './error-codes.js';

/** What the service accepts and returns at most, compiled from the environment at boot (server.ts). */
export interface TriggerServiceLimits {
  /** Tasks or fires one page returns by default, and at most. */
  pageSize: number;
  maxPageSize: number;
  /** Largest task spec accepted, in bytes. */
  maxSpecBytes: number;
  /** Largest event data accepted through PublishEvent, in bytes of JSON. */
  maxEventBytes: number;
  /** Accept plain `http://` webhook URLs (development, tests); otherwise https only. */
  webhookAllowHttp: boolean;
}

const TaskId = z.string().regex(/^task_[0-9a-f-]{36}$/, 'is not a task id');
const RequestId = z.string().max(200);
const UserId = z.string().max(200);

/** A malformed task id cannot name a task: NOT_FOUND, like a task of another tenant. */
function taskIdOf(request: { taskId: string }): string {
  if (!TaskId.safeParse(request.taskId).success)
    throw errors.notFound(ErrorCodes.TASK_NOT_FOUND, `no task '${request.taskId.slice(0, 80)}'`);
  return request.taskId;
}

/**
 * Webhooks go to https endpoints unless the deployment allows plain http (development), and reach
 * public addresses only (the egress guard resolves the host now; deliveries are vetted again when
 * they connect). A refusal is EGRESS_REFUSED naming the reason, never the URL or its addresses.
 */
async function checkWebhookUrl(spec: TaskSpec, allowHttp: boolean, egress: EgressGuard): Promise<TaskSpec> {
  if (spec.output.channel !== 'webhook') return spec;
  if (!allowHttp && !spec.output.url!.startsWith('https://')) {
    throw errors.invalidArgument(ErrorCodes.INVALID_TASK_SPEC, 'output.url: must be an https URL', {
      details: { issues: [{ field: 'output.url', message: 'must be an https URL' }] },
    });
  }
  try {
    await egress.checkUrl(spec.output.url!);
  } catch (err) {
    const refused = egressRefusalOf(err);
    if (!refused) throw err;
    throw errors.invalidArgument(EGRESS_REFUSED, `output.url: ${refused.message}`, {
      details: { reason: refused.reason, issues: [{ field: 'output.url', message: refused.message }] },
    });
  }
  return spec;
}

export interface TriggerServiceDeps {
  tasks: TaskStore;
  /** Tasks per tenant and the shortest schedule interval, per tier. */
  quotas: TaskQuotas;
  fires: FireStore;
  events: EventRouter;
  clock: Clock;
  limits: TriggerServiceLimits;
  /** Limits on filters' and conditions' regular expressions, checked at creation. */
  filterLimits?: FilterLimits;
  logger: Logger;
  /** Called after a run-now fire is recorded, so it is claimed at once. */
  onFireRecorded: () => void;
  feed: NotificationFeed;
  /** Checks webhook URLs when a task is created or replaced. */
  egress: EgressGuard;
  /** The orchestrator's tool gate: a task's condition tool and custom executor are checked against it before the task is stored. */
  tools: Pick<OrchestratorTools, 'checkTask'>;
}

/** The TriggerService gRPC implementation: validates at the edge, scopes everything by tenant. */
export function triggerServiceImplementation(deps: TriggerServiceDeps): triggerV1.TriggerServiceServer {
  const { tasks, quotas, fires, events, clock, limits, logger } = deps;
  const pageSize = (requested: number): number => {
    if (requested < 0 || requested > limits.maxPageSize)
      throw errors.invalidArgument(
        ErrorCodes.INVALID_PAGE_SIZE,
        `page_size must be between 0 and ${limits.maxPageSize}`,
      );
    return requested || limits.pageSize;
  };
  return {
    createTask: unaryHandler<triggerV1.CreateTaskRequest, triggerV1.CreateTaskResponse>(
      logger,
      'CreateTask',
      async (request) => {
        const tenantId = tenantOf(request);
        const userId = parseOrReject(UserId, request.userId, ErrorCodes.INVALID_USER_ID, 'user_id');
        const requestId = parseOrReject(RequestId, request.requestId, ErrorCodes.INVALID_REQUEST_ID, 'request_id');
        const spec = await checkWebhookUrl(
          parseTaskSpec(request.specJson, limits.maxSpecBytes, deps.filterLimits),
          limits.webhookAllowHttp,
          deps.egress,
        );
        const quota = quotas.of(request.tier ?? '');
        quotas.checkInterval(spec, quota, clock.now());
        await deps.tools.checkTask(tenantId, spec);
        const created = await tasks.create({
          tenantId,
          userId,
          spec,
          requestId: requestId || null,
          nowMs: clock.now(),
          quota,
        });
        if (!created.duplicate)
          logger.info(
            { tenantId, taskId: created.task.task_id, trigger: spec.trigger.type, executor: spec.executor },
            'task created',
          );
        return {
          task: taskView(created.task),
          duplicate: created.duplicate,
          webhookSecret: created.task.webhook_secret ?? '',
        };
      },
    ),

    getTask: unaryHandler<triggerV1.GetTaskRequest, triggerV1.GetTaskResponse>(logger, 'GetTask', async (request) => ({
      task: taskView(await tasks.get(tenantOf(request), taskIdOf(request))),
    })),

    listTasks: unaryHandler<triggerV1.ListTasksRequest, triggerV1.ListTasksResponse>(
      logger,
      'ListTasks',
      async (request) => {
        const page = await tasks.list(tenantOf(request), pageSize(request.pageSize), request.pageToken);
        return { tasks: page.tasks.map(taskView), nextPageToken: page.nextPageToken };
      },
    ),

    updateTask: unaryHandler<triggerV1.UpdateTaskRequest, triggerV1.UpdateTaskResponse>(
      logger,
      'UpdateTask',
      async (request) => {
        const tenantId = tenantOf(request);
        const taskId = taskIdOf(request);
        const spec = await checkWebhookUrl(
          parseTaskSpec(request.specJson, limits.maxSpecBytes, deps.filterLimits),
          limits.webhookAllowHttp,
          deps.egress,
        );
        quotas.checkInterval(spec, quotas.of(request.tier ?? ''), clock.now());
        await deps.tools.checkTask(tenantId, spec);
        return { task: taskView(await tasks.update(tenantId, taskId, spec, clock.now())) };
      },
    ),

    deleteTask: unaryHandler<triggerV1.DeleteTaskRequest, triggerV1.DeleteTaskResponse>(
      logger,
      'DeleteTask',
      async (request) => {
        await tasks.delete(tenantOf(request), taskIdOf(request));
        return {};
      },
    ),

    pauseTask: unaryHandler<triggerV1.PauseTaskRequest, triggerV1.PauseTaskResponse>(
      logger,
      'PauseTask',
      async (request) => ({
        task: taskView(await tasks.pause(tenantOf(request), taskIdOf(request))),
      }),
    ),

    resumeTask: unaryHandler<triggerV1.ResumeTaskRequest, triggerV1.ResumeTaskResponse>(
      logger,
      'ResumeTask',
      async (request) => ({
        task: taskView(await tasks.resume(tenantOf(request), taskIdOf(request), clock.now())),
      }),
    ),

    runTaskNow: unaryHandler<triggerV1.RunTaskNowRequest, triggerV1.RunTaskNowResponse>(
      logger,
      'RunTaskNow',
      async (request) => {
        const task = await tasks.get(tenantOf(request), taskIdOf(request));
        const requestId = parseOrReject(RequestId, request.requestId, ErrorCodes.INVALID_REQUEST_ID, 'request_id');
        const recorded = await fires.runNow(task, requestId, clock.now());
        deps.onFireRecorded();
        return { fire: fireView(recorded.fire), duplicate: recorded.duplicate };
      },
    ),

    listFires: unaryHandler<triggerV1.ListFiresRequest, triggerV1.ListFiresResponse>(
      logger,
      'ListFires',
      async (request) => {
        const tenantId = tenantOf(request);
        const taskId = taskIdOf(request);
        await tasks.get(tenantId, taskId);
        const page = await fires.list(tenantId, taskId, pageSize(request.pageSize), request.pageToken);
        return { fires: page.fires.map(fireView), nextPageToken: page.nextPageToken };
      },
    ),

    publishEvent: unaryHandler<triggerV1.PublishEventRequest, triggerV1.PublishEventResponse>(
      logger,
      'PublishEvent',
      async (request) => {
        const tenantId = tenantOf(request);
        if (Buffer.byteLength(request.dataJson, 'utf8') > limits.maxEventBytes) {
          throw errors.invalidArgument(ErrorCodes.INVALID_EVENT, `data is larger than ${limits.maxEventBytes} bytes`);
        }
        let data: unknown;
        try {
          data = request.dataJson ? JSON.parse(request.dataJson) : {};
        } catch {
          throw errors.invalidArgument(ErrorCodes.INVALID_EVENT, 'data_json is not valid JSON');
        }
        const event = ExternalEvent.safeParse({
          ...(request.eventId ? { eventId: request.eventId } : {}),
          source: request.source,
          type: request.type,
          data,
        });
        if (!event.success) {
          const issue = event.error.issues[0];
          throw errors.invalidArgument(
            ErrorCodes.INVALID_EVENT,
            `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
          );
        }
        const routed = await events.route(tenantId, event.data);
        return { eventId: routed.eventId, firedTaskIds: routed.firedTaskIds };
      },
    ),

    listNotifications: unaryHandler<triggerV1.ListNotificationsRequest, triggerV1.ListNotificationsResponse>(
      logger,
      'ListNotifications',
      async (request) => {
        const tenantId = tenantOf(request);
        const userId = parseOrReject(UserId, request.userId, ErrorCodes.INVALID_USER_ID, 'user_id');
        if (!Number.isSafeInteger(request.afterSeq) || request.afterSeq < 0)
          throw errors.invalidArgument(ErrorCodes.INVALID_AFTER_SEQ, 'after_seq must be a non-negative integer');
        const limit =
          request.limit < 0 || request.limit > limits.maxPageSize
            ? pageSize(request.limit)
            : request.limit || limits.pageSize;
        return { notifications: await deps.feed.list(tenantId, userId, request.afterSeq, limit) };
      },
    ),
  };
}
