import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { observeConsumerLag } from '@platform/telemetry';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { jsonBody } from './nats.js';

/** Options of {@link DurableConsumer}. */
export interface DurableConsumerOptions<T> {
  stream: string;
  /** Durable name, shared by every replica: each message goes to one of them. */
  durableName: string;
  filterSubject?: string;
  /** Each message's JSON body is parsed with it; one that does not parse is logged and dropped (terminated). */
  schema: z.ZodType<T>;
  /** Handles one message; the message is acknowledged when it resolves and redelivered (after `retryMs`) when it throws. */
  handle: (body: T, message: JsMsg) => Promise<void>;
  /** Runs before each (re)subscription, e.g. to create the stream when this service owns it. */
  prepare?: () => Promise<void>;
  /** What the messages are, for log lines (e.g. `agent expiry events`). */
  what: string;
  logger: Logger;
  /** Delay before a redelivery and before subscribing again after a failure. Default 2 s. */
  retryMs?: number;
  /** How long a delivered message may go unacknowledged before it is delivered again. Default 30 s. */
  ackWaitMs?: number;
  /** How often the consumer's lag is read for the `platform.consumer.lag` gauge. Default 10 s. */
  lagPollMs?: number;
}

/**
 * One durable JetStream consumer read in the background: it waits for the stream to exist
 * (retrying, e.g. while another service creates it), parses each message, acknowledges it once its
 * handler succeeded, redelivers it when the handler failed, and drops a malformed one. One bad
 * message never ends the loop; a lost subscription is made again.
 */
export class DurableConsumer<T> {
  private stopped = false;
  private close: (() => Promise<void>) | undefined;
  private readonly retryMs: number;
  private lag: number | undefined;
  private stopLagMetric: (() => void) | undefined;
  private lagTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: DurableConsumerOptions<T>,
  ) {
    this.retryMs = options.retryMs ?? 2_000;
  }

  start(): void {
    void this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.lagTimer);
    this.stopLagMetric?.();
    await this.close?.();
  }

  /** Messages not yet handled (pending + delivered but unacknowledged) at the last reading; metrics and tests. */
  get currentLag(): number | undefined {
    return this.lag;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.consume();
      } catch (err) {
        if (this.stopped) return;
        this.options.logger.debug({ err: (err as Error).message }, `${this.options.what} not readable yet; retrying`);
        await new Promise((r) => setTimeout(r, this.retryMs));
      }
    }
  }

  private async consume(): Promise<void> {
    const { stream, durableName, filterSubject, logger, what } = this.options;
    await this.options.prepare?.();
    const jsm = await jetstreamManager(this.nc);
    await jsm.consumers.add(stream, {
      durable_name: durableName,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ...(filterSubject ? { filter_subject: filterSubject } : {}),
      ack_wait: nanos(this.options.ackWaitMs ?? 30_000),
    });
    const consumer = await jetstream(this.nc).consumers.get(stream, durableName);
    this.watchLag(() => consumer.info());
    const messages = await consumer.consume();
    this.close = async () => void (await messages.close());
    if (this.stopped) await this.close();
    for await (const message of messages) {
      const parsed = this.options.schema.safeParse(jsonBody(message));
      if (!parsed.success) {
        logger.warn(
          { subject: message.subject, issue: parsed.error.issues[0]?.message },
          `dropped a malformed message of ${what}`,
        );
        message.term();
        continue;
      }
      try {
        await this.options.handle(parsed.data, message);
        message.ack();
      } catch (err) {
        logger.warn(
          { err: (err as Error).message, subject: message.subject },
          `could not handle a message of ${what}; it will be redelivered`,
        );
        message.nak(this.retryMs);
      }
    }
  }

  /** Reports the consumer's lag as `platform.consumer.lag{platform.consumer=<durable name>}`. */
  private watchLag(read: () => Promise<{ num_pending: number; num_ack_pending: number }>): void {
    clearInterval(this.lagTimer);
    this.stopLagMetric ??= observeConsumerLag(this.options.durableName, () => this.lag);
    const poll = (): void => {
      read()
        .then((info) => (this.lag = info.num_pending + info.num_ack_pending))
        .catch(() => undefined);
    };
    poll();
    this.lagTimer = setInterval(poll, this.options.lagPollMs ?? 10_000);
    this.lagTimer.unref();
  }
}
