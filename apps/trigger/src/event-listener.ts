import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { PublishedExternalEvent, TRIGGER_EVENT_SUBJECT_PREFIX, TRIGGER_EVENTS_STREAM } from '@platform/contracts';
import { ensureStream, jsonBody, type Logger, type NatsConnection } from '@platform/service-kit';
import type { EventRouter } from './event-router.js';

const CONSUMER = 'trigger-event-router';
const RETRY_MS = 2_000;

/**
 * Reads external events from JetStream (stream `TRIGGER_EVENTS`, created if missing) through one
 * durable consumer shared by every replica, so each event is routed by one of them, and
 * acknowledges an event once its fires are recorded; an event that could not be routed is
 * redelivered. A malformed event is logged and dropped, and never stops the loop.
 */
export class EventListener {
  private stopped = false;
  private close: (() => Promise<void>) | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly router: EventRouter,
    private readonly maxAgeMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    void this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.close?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.consume();
      } catch (err) {
        if (this.stopped) return;
        this.logger.warn({ err: (err as Error).message }, 'external events not readable; retrying');
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  private async consume(): Promise<void> {
    await ensureStream(this.nc, { name: TRIGGER_EVENTS_STREAM, subjects: [`${TRIGGER_EVENT_SUBJECT_PREFIX}.>`], maxAgeMs: this.maxAgeMs });
    const jsm = await jetstreamManager(this.nc);
    await jsm.consumers.add(TRIGGER_EVENTS_STREAM, { durable_name: CONSUMER, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ack_wait: nanos(30_000) });
    const consumer = await jetstream(this.nc).consumers.get(TRIGGER_EVENTS_STREAM, CONSUMER);
    const messages = await consumer.consume();
    this.close = async () => void (await messages.close());
    if (this.stopped) await this.close();
    for await (const message of messages) {
      const parsed = PublishedExternalEvent.safeParse(jsonBody(message));
      if (!parsed.success) {
        this.logger.warn({ subject: message.subject, issue: parsed.error.issues[0]?.message }, 'dropped a malformed external event');
        message.term();
        continue;
      }
      const { tenantId, ...event } = parsed.data;
      try {
        await this.router.route(tenantId, { ...event, eventId: event.eventId ?? `js_${message.info.streamSequence}` });
        message.ack();
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, tenantId }, 'could not route an external event; it will be redelivered');
        message.nak(RETRY_MS);
      }
    }
  }
}
