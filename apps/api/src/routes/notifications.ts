import type { triggerV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { lastEventIdOf, SseStream } from '../events/sse.js';
import { OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation, STREAMED } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import type { StreamQuota } from '../quotas/stream-leases.js';
import { ApiErrorCodes } from '../error-codes.js';

export interface NotificationRoutesOptions {
  trigger: PromiseClient<triggerV1.TriggerServiceClient>;
  sseHeartbeatMs: number;
  /** How often an open stream asks the trigger service for new notifications. */
  pollMs: number;
  /** The tenant's concurrent_streams quota. */
  streams: StreamQuota;
}

/** One read of the feed: as many as one page holds; a full page is followed by the next at once. */
const PAGE = 200;

/** A notification as the stream sends it in `data:`: the same JSON a webhook receives, plus its seq and id. */
function notificationData(n: triggerV1.Notification): Record<string, unknown> {
  return {
    seq: n.seq,
    notificationId: n.notificationId,
    createdAt: n.createdAt?.toISOString() ?? null,
    ...(JSON.parse(n.bodyJson) as Record<string, unknown>),
  };
}

const Notification = z
  .looseObject({ seq: z.number().int(), notificationId: z.string(), createdAt: OptionalTimestamp })
  .meta({
    id: 'Notification',
    description:
      'A notification: its seq (also the event id) and id, then the same JSON a webhook receives (docs/triggers.md); the event name is its type.',
  });

export const notificationOperations = {
  watchNotifications: defineOperation({
    method: 'GET',
    path: '/v1/notifications',
    operationId: 'watchNotifications',
    summary: "The tenant's notification stream (SSE), resuming after Last-Event-ID",
    tags: ['tasks'],
    access: 'tenant',
    role: 'viewer',
    query: z.object({
      after: z.string().optional().meta({ description: 'Resume after this seq (as `Last-Event-ID`).' }),
    }),
    headers: z.object({ 'Last-Event-ID': z.string().optional() }),
    responses: {
      200: {
        description:
          'Notifications as they are recorded: fire results, approval requests of triggered runs, expiry notices.',
        events: Notification,
      },
    },
    errors: { 429: ['QUOTA_EXCEEDED'], 503: ['UNAVAILABLE'] },
  }),
};

/**
 * The notification stream (SSE): the trigger service's notifications for the caller's tenant — of
 * the caller's own tasks when the token names a user — as they are recorded (fire results, approval
 * requests of triggered runs, expiry notices). Each event's id is the feed's seq: a client that
 * reconnects with `Last-Event-ID` (or `?after=`) gets what it missed, in order, then new ones.
 * The feed is durable (Postgres, in the transaction that settles the fire), so nothing recorded
 * while no client was connected is lost within its retention.
 */
export function registerNotificationRoutes(router: OperationRouter, options: NotificationRoutesOptions): void {
  router.add(notificationOperations.watchNotifications, async ({ request, reply }) => {
    const principal = principalOf(request);
    const scope = { tenantId: principal.tenantId, userId: principal.subject ?? '' };
    let after = lastEventIdOf(request.headers['last-event-id'], request.query);
    // The first read happens before the stream opens: a trigger service that is down is a 503.
    let page = (await options.trigger.listNotifications({ ...scope, afterSeq: after, limit: PAGE })).notifications;
    // Counted before the stream opens, so a tenant at its quota gets a 429 in the envelope.
    const lease = await options.streams.acquire(principal);
    const stream = new SseStream(reply, options.sseHeartbeatMs);
    const closed = stream.closedSignal();
    try {
      while (!closed.aborted) {
        for (const notification of page) {
          stream.send(notification.type, notificationData(notification), notification.seq);
          after = notification.seq;
        }
        if (page.length < PAGE) await sleep(options.pollMs, undefined, { signal: closed }).catch(() => undefined);
        if (closed.aborted) break;
        page = (await options.trigger.listNotifications({ ...scope, afterSeq: after, limit: PAGE }, { signal: closed }))
          .notifications;
      }
    } catch (error) {
      // The client resumes from the last id it got when it reconnects.
      if (!closed.aborted)
        stream.send('error', {
          error: { code: ApiErrorCodes.NOTIFICATIONS_UNAVAILABLE, message: (error as Error).message },
        });
    } finally {
      stream.end();
      lease.release();
    }
    return STREAMED;
  });
}
