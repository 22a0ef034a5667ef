import { headers } from '@nats-io/nats-core';
import type { LoopEvent } from '@platform/agent-loop';
import { RUN_EVENTS_STREAM, RunEventEnvelope, runEventsSubject, type RunEventType } from '@platform/contracts';
import { lastMessageJson, PublishBatcher, type Logger, type NatsConnection } from '@platform/service-kit';
import { runStatus } from '../run-status.js';

/** Events of a model message as it is written: published only for a run that streams. */
const STREAMED_PIECES: ReadonlySet<string> = new Set(['message_chunk', 'tool_call_args_delta']);

/**
 * The event's own fields: the envelope carries id, run and time; the full result keeps no
 * transcript and says the run's status (as GET run has it), so a stream's reader need not work it
 * out from the stop reason.
 */
function dataOf(event: LoopEvent): Record<string, unknown> {
  const { runId: _runId, seq: _seq, at: _at, type: _type, ...data } = event;
  if (event.type === 'execution_end') {
    const { transcript: _transcript, ...result } = event.result;
    return { result: { ...result, status: runStatus(event.result) } };
  }
  return data;
}

/**
 * Publishes one run's events to its subject in the run-events stream, numbered after whatever an
 * earlier attempt of the run published. Events are plain NATS publishes the stream captures: they
 * go out in order on one connection without a round trip each (the run's outcome is recorded in
 * Postgres, not in its events), coalesced with every other publish of the same event-loop turn
 * ({@link PublishBatcher}); `sendNow` sends them at once, and `flush` waits until the server has
 * them. Each carries the message id `<run>:<n>`, so a republished event is dropped by the stream's
 * duplicate window.
 */
export class RunEventPublisher {
  private readonly subject: string;
  private nextId: number;

  private constructor(
    private readonly out: PublishBatcher,
    private readonly runId: string,
    lastId: number,
    private readonly logger: Logger,
    private readonly includeChunks: boolean,
  ) {
    this.subject = runEventsSubject(runId);
    this.nextId = lastId + 1;
  }

  /** For a resumed run, continues numbering after the last event the stream holds. */
  static async open(
    nc: NatsConnection,
    runId: string,
    options: { resumed: boolean; includeChunks: boolean; logger: Logger },
  ): Promise<RunEventPublisher> {
    let lastId = 0;
    if (options.resumed) {
      const last = RunEventEnvelope.safeParse(await lastMessageJson(nc, RUN_EVENTS_STREAM, runEventsSubject(runId)));
      if (last.success) lastId = last.data.id;
    }
    return new RunEventPublisher(PublishBatcher.of(nc), runId, lastId, options.logger, options.includeChunks);
  }

  publish(type: RunEventType, data: Record<string, unknown>, at = Date.now()): void {
    const envelope: RunEventEnvelope = { id: this.nextId++, runId: this.runId, type, at, data };
    const h = headers();
    h.set('Nats-Msg-Id', `${this.runId}:${envelope.id}`);
    this.out.publish(this.subject, JSON.stringify(envelope), {
      headers: h,
      onError: (err) =>
        this.logger.warn({ err: err.message, runId: this.runId, eventId: envelope.id }, 'run event not published'),
    });
  }

  /** The loop's event sink. */
  readonly sink = (event: LoopEvent): void => {
    if (STREAMED_PIECES.has(event.type) && !this.includeChunks) return;
    this.publish(event.type, dataOf(event), event.at);
  };

  /** Hands every event published so far to the connection now, without waiting for the server's receipt. */
  sendNow(): void {
    this.out.send();
  }

  /** Waits until the server has every event published so far. */
  async flush(): Promise<void> {
    try {
      await this.out.flush();
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, runId: this.runId }, 'run events not flushed');
    }
  }
}

/** The events of a run that ended without running (cancelled while queued), so watchers see its end. */
export async function publishEndWithoutRun(
  nc: NatsConnection,
  logger: Logger,
  runId: string,
  result: Record<string, unknown>,
): Promise<void> {
  const events = await RunEventPublisher.open(nc, runId, { resumed: true, includeChunks: false, logger });
  events.publish('state_change', { state: 'cancelled', reason: 'cancelled' });
  events.publish('execution_end', { result: { ...result, status: 'cancelled' } });
  await events.flush();
}
