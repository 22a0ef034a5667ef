import { DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages } from '@nats-io/jetstream';
import { NamedError, RUN_EVENTS_STREAM, RUN_EVENTS_SUBJECT_PREFIX } from '@platform/contracts';
import { jsonBody, type Logger, type NatsConnection } from '@platform/service-kit';

/** A message of the run-events stream: its stream sequence and JSON body (undefined when not JSON). */
export interface FeedMessage {
  seq: number;
  body: unknown;
}

/** The events cannot be read now (the feed's consumer is down): the caller streams without them. */
export class RunEventsUnavailableError extends NamedError {}

/**
 * One subject's messages from the feed, in stream order, from the first one after `from` (the
 * stream sequence the feed had reached when the watch began: older messages are in the stream,
 * for the watcher to read there). Ends when closed (or its signal aborts, or the feed stops).
 */
export class FeedWatch implements AsyncIterable<FeedMessage> {
  private queue: FeedMessage[] = [];
  private head = 0;
  private wake: (() => void) | undefined;
  private closed = false;
  private failure: Error | undefined;

  constructor(
    readonly subject: string,
    /** The last stream sequence the feed had handled when this watch began. */
    readonly from: number,
    private readonly unregister: (watch: FeedWatch) => void,
  ) {}

  /** Called by the feed, in stream order. */
  push(message: FeedMessage): void {
    if (this.closed) return;
    this.queue.push(message);
    this.wake?.();
  }

  /** Ends the watch; with `error`, the reader's next read throws it (after what was queued). */
  close(error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.failure = error;
    this.unregister(this);
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<FeedMessage> {
    try {
      for (;;) {
        if (this.head < this.queue.length) {
          const message = this.queue[this.head]!;
          this.queue[this.head++] = undefined as unknown as FeedMessage;
          if (this.head > 1024 && this.head * 2 > this.queue.length) {
            this.queue = this.queue.slice(this.head);
            this.head = 0;
          }
          yield message;
          continue;
        }
        if (this.closed) {
          if (this.failure) throw this.failure;
          return;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      this.close();
    }
  }
}

export interface RunEventFeedOptions {
  /** How long the feed waits before making its consumer again after it failed. */
  restartDelayMs?: number;
}

/**
 * The run-events stream as one ordered consumer per api replica, handed out by subject to the
 * streams open here. A consumer per open stream (what the api had) costs the server a consumer
 * (its creation looks the run's subject up in the whole stream, then heartbeats and pull requests
 * while the run waits on its model) and this process a subscription, timers and a request per
 * run: with thousands of runs in flight that work, not the runs, filled both processes. The
 * feed reads the stream from where it stood when the feed started, in stream order, and its
 * consumer, when it fails, is made again from the next sequence, so a watch misses nothing that
 * the stream stored after the watch began; what was stored before, the watcher reads from the
 * stream itself (see {@link FeedWatch.from}).
 */
export class RunEventFeed {
  /** Subject -> the watches open on it. */
  private readonly watches = new Map<string, Set<FeedWatch>>();
  /** The stream sequence of the last message handled (or the stream's last when the feed started). */
  private position = 0;
  private messages: ConsumerMessages | undefined;
  private consuming = false;
  private stopped = false;
  private running: Promise<void> | undefined;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
    private readonly options: RunEventFeedOptions,
  ) {}

  /** Starts reading the stream after its last stored message. */
  static async start(nc: NatsConnection, logger: Logger, options: RunEventFeedOptions = {}): Promise<RunEventFeed> {
    const feed = new RunEventFeed(nc, logger, options);
    const info = await (await jetstreamManager(nc)).streams.info(RUN_EVENTS_STREAM);
    feed.position = info.state.last_seq;
    await feed.open();
    feed.running = feed.run();
    return feed;
  }

  /** The stream sequence of the last message the feed handled: a watch begun now sees every later one. */
  get handled(): number {
    return this.position;
  }

  /** Watches that are open (tests; the stream gauge counts streams, not these). */
  get watching(): number {
    let n = 0;
    for (const set of this.watches.values()) n += set.size;
    return n;
  }

  /**
   * Begins a watch of `subject` now (synchronously: every message the stream stores from here on
   * reaches it). Throws {@link RunEventsUnavailableError} while the feed's consumer is down.
   */
  watch(subject: string, signal?: AbortSignal): FeedWatch {
    if (this.stopped || !this.consuming) throw new RunEventsUnavailableError('run events are unavailable');
    const watch = new FeedWatch(subject, this.position, (w) => {
      const set = this.watches.get(w.subject);
      if (!set) return;
      set.delete(w);
      if (set.size === 0) this.watches.delete(w.subject);
      if (signal) signal.removeEventListener('abort', abort);
    });
    const abort = (): void => watch.close();
    let set = this.watches.get(subject);
    if (!set) this.watches.set(subject, (set = new Set()));
    set.add(watch);
    if (signal) {
      if (signal.aborted) watch.close();
      else signal.addEventListener('abort', abort, { once: true });
    }
    return watch;
  }

  /** Stops reading; open watches end (their readers see the end of the events, as at a closed connection). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close().catch(() => undefined);
    await this.running;
  }

  private async open(): Promise<void> {
    const consumer = await jetstream(this.nc).consumers.get(RUN_EVENTS_STREAM, {
      filter_subjects: `${RUN_EVENTS_SUBJECT_PREFIX}.>`,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: this.position + 1,
    });
    this.messages = await consumer.consume({ max_messages: 1_000 });
    this.consuming = true;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        for await (const message of this.messages!) this.handle(message.subject, message.seq, message);
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'the run-events feed stopped; making it again');
      }
      this.consuming = false;
      if (this.stopped || this.nc.isClosed()) break;
      // Watches stay open: the consumer starts again after the last message handled, so they
      // miss nothing, only wait. New watches are refused meanwhile (their streams go on without events).
      await new Promise((resolve) => setTimeout(resolve, this.options.restartDelayMs ?? 1_000));
      if (this.stopped) break;
      try {
        await this.open();
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'cannot make the run-events feed again; retrying');
      }
    }
    this.consuming = false;
    // Stopped: the watches end as a closed consumer's reads did; a closed connection: they fail.
    for (const set of [...this.watches.values()])
      for (const watch of [...set])
        watch.close(this.stopped ? undefined : new RunEventsUnavailableError('the run-events feed stopped'));
  }

  private handle(subject: string, seq: number, message: { json(): unknown }): void {
    if (seq <= this.position) return; // delivered again after a restart of the consumer
    this.position = seq;
    const set = this.watches.get(subject);
    if (!set) return;
    const body = jsonBody(message);
    for (const watch of set) watch.push({ seq, body });
  }
}
