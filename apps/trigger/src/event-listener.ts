import { PublishedExternalEvent, TRIGGER_EVENT_SUBJECT_PREFIX, TRIGGER_EVENTS_STREAM } from '@platform/contracts';
import { DurableConsumer, ensureStream, type Logger, type NatsConnection } from '@platform/service-kit';
import type { EventRouter } from './event-router.js';

const CONSUMER = 'trigger-event-router';

/**
 * Reads external events from JetStream (stream `TRIGGER_EVENTS`, created if missing) through one
 * durable consumer shared by every replica, so each event is routed by one of them, and
 * acknowledges an event once its fires are recorded; an event that could not be routed is
 * redelivered. A malformed event is logged and dropped, and never stops the loop.
 */
export class EventListener {
  private readonly consumer: DurableConsumer<PublishedExternalEvent>;

  constructor(nc: NatsConnection, router: EventRouter, maxAgeMs: number, logger: Logger) {
    this.consumer = new DurableConsumer(nc, {
      stream: TRIGGER_EVENTS_STREAM,
      durableName: CONSUMER,
      schema: PublishedExternalEvent,
      prepare: () =>
        ensureStream(nc, { name: TRIGGER_EVENTS_STREAM, subjects: [`${TRIGGER_EVENT_SUBJECT_PREFIX}.>`], maxAgeMs }),
      handle: async ({ tenantId, ...event }, message) => {
        await router.route(tenantId, { ...event, eventId: event.eventId ?? `js_${message.info.streamSequence}` });
      },
      what: 'external events',
      logger,
    });
  }

  start(): void {
    this.consumer.start();
  }

  stop(): Promise<void> {
    return this.consumer.stop();
  }
}
