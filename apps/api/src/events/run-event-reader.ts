import { RUN_EVENTS_STREAM, RunEventEnvelope, runEventsSubject } from '@platform/contracts';
import { followSubject, lastMessage, lastMessageJson, type Logger, type NatsConnection } from '@platform/service-kit';
import type { FeedMessage, FeedWatch, RunEventFeed } from './run-event-feed.js';

/** What routes need of the run events (a narrower type lets HTTP-edge tests supply their own). */
export type RunEvents = Pick<RunEventReader, 'read' | 'lastId'>;

export interface ReadOptions {
  /**
   * The run is new: its id was made by this caller, and the run is started only after `read`
   * returned. Nothing of it can be stored yet, so the stream is not searched for older events.
   */
  fresh?: boolean;
}

/**
 * Reads one run's events from the run-events stream, oldest first, skipping those a client has
 * already seen (`afterId`, from `Last-Event-ID`), and ends after `execution_end`. Events that
 * arrive while the read is open come from the replica's one {@link RunEventFeed}; those the stream
 * stored before the read began (a client watching a run that already ran, or reconnecting) are
 * read from the stream first, by an ordered consumer of the read's own, up to where the feed took
 * over. So any number of clients can watch one run, and a new run's stream costs no consumer.
 */
export class RunEventReader {
  constructor(
    private readonly nc: NatsConnection,
    private readonly feed: Pick<RunEventFeed, 'watch'>,
    private readonly logger: Logger,
  ) {}

  /** The id of the run's last stored event (0 when none is stored: not started, or expired). */
  async lastId(runId: string): Promise<number> {
    const parsed = RunEventEnvelope.safeParse(
      await lastMessageJson(this.nc, RUN_EVENTS_STREAM, runEventsSubject(runId)),
    );
    return parsed.success ? parsed.data.id : 0;
  }

  /**
   * The run's events. The read begins when this returns (not at the first `next()`), so a caller
   * that starts the run afterwards misses none of its events.
   */
  read(
    runId: string,
    afterId: number,
    signal: AbortSignal,
    options: ReadOptions = {},
  ): AsyncGenerator<RunEventEnvelope> {
    let watch: FeedWatch;
    try {
      watch = this.feed.watch(runEventsSubject(runId), signal);
    } catch (error) {
      return failed(error);
    }
    return this.events(watch, runId, afterId, signal, options.fresh ?? false);
  }

  private async *events(
    watch: FeedWatch,
    runId: string,
    afterId: number,
    signal: AbortSignal,
    fresh: boolean,
  ): AsyncGenerator<RunEventEnvelope> {
    try {
      if (!fresh) {
        for await (const message of this.storedBefore(watch, signal)) {
          const event = this.parse(runId, message);
          if (!event || event.id <= afterId) continue;
          yield event;
          if (event.type === 'execution_end') return;
        }
      }
      for await (const message of watch) {
        const event = this.parse(runId, message);
        if (!event || event.id <= afterId) continue;
        yield event;
        if (event.type === 'execution_end') return;
      }
    } finally {
      watch.close();
    }
  }

  /**
   * The messages of the watch's subject that the stream stored up to the watch's start (`from`):
   * none when the subject's last stored message is none; otherwise the subject's messages oldest
   * first, until the last one stored (when it is at or before `from`) or the first one after
   * `from` (which the watch has).
   */
  private async *storedBefore(watch: FeedWatch, signal: AbortSignal): AsyncGenerator<FeedMessage> {
    const last = await lastMessage(this.nc, RUN_EVENTS_STREAM, watch.subject);
    if (!last) return;
    const stop = new AbortController();
    const onAbort = (): void => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) stop.abort();
    try {
      for await (const message of followSubject(this.nc, RUN_EVENTS_STREAM, watch.subject, stop.signal)) {
        if (message.seq > watch.from) return;
        yield message;
        if (message.seq >= last.seq) return;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      stop.abort();
    }
  }

  private parse(runId: string, message: FeedMessage): RunEventEnvelope | undefined {
    const parsed = RunEventEnvelope.safeParse(message.body);
    if (parsed.success) return parsed.data;
    this.logger.warn({ runId, seq: message.seq }, 'skipped a malformed run event');
    return undefined;
  }
}

// eslint-disable-next-line require-yield -- a read that fails at its first step
async function* failed(error: unknown): AsyncGenerator<RunEventEnvelope> {
  throw error;
}
