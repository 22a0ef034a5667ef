import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { LoopEvent } from '@platform/agent-loop';
import { RUN_EVENTS_STREAM, RunEventEnvelope, runEventsSubject, type RunEventType } from '@platform/contracts';
import type { Logger, NatsConnection } from '@platform/service-kit';

/** The event's own fields: the envelope carries id, run and time; the full result keeps no transcript. */
function dataOf(event: LoopEvent): Record<string, unknown> {
  const { runId: _runId, seq: _seq, at: _at, type: _type, ...data } = event;
  if (event.type === 'execution_end') {
    const { transcript: _transcript, ...result } = event.result;
    return { result };
  }
  return data;
}

/**
 * Publishes one run's events to its subject in the run-events stream, numbered after whatever an
 * earlier attempt of the run published. Publishing never blocks the loop: messages go out in
 * order on one connection and `flush` waits for the stream's acknowledgements. Each message id
 * is `<run>:<n>`, so a republished event is dropped by the stream's duplicate window.
 */
export class RunEventPublisher {
  private readonly subject: string;
  private nextId: number;
  private readonly acks: Array<Promise<unknown>> = [];
  private failures = 0;

  private constructor(
    private readonly js: JetStreamClient,
    private readonly runId: string,
    lastId: number,
    private readonly logger: Logger,
    private readonly includeChunks: boolean,
  ) {
    this.subject = runEventsSubject(runId);
    this.nextId = lastId + 1;
  }

  /** For a resumed run, continues numbering after the last event the stream holds. */
  static async open(nc: NatsConnection, runId: string, options: { resumed: boolean; includeChunks: boolean; logger: Logger }): Promise<RunEventPublisher> {
    let lastId = 0;
    if (options.resumed) {
      const jsm = await jetstreamManager(nc);
      const last = await jsm.streams.getMessage(RUN_EVENTS_STREAM, { last_by_subj: runEventsSubject(runId) }).catch(() => null);
      if (last) lastId = RunEventEnvelope.parse(last.json()).id;
    }
    return new RunEventPublisher(jetstream(nc), runId, lastId, options.logger, options.includeChunks);
  }

  publish(type: RunEventType, data: Record<string, unknown>, at = Date.now()): void {
    const envelope: RunEventEnvelope = { id: this.nextId++, runId: this.runId, type, at, data };
    const ack = this.js.publish(this.subject, JSON.stringify(envelope), { msgID: `${this.runId}:${envelope.id}` }).catch((err: unknown) => {
      this.failures += 1;
      this.logger.warn({ err: (err as Error).message, runId: this.runId, eventId: envelope.id }, 'run event not stored');
    });
    this.acks.push(ack);
  }

  /** The loop's event sink. */
  readonly sink = (event: LoopEvent): void => {
    if (event.type === 'message_chunk' && !this.includeChunks) return;
    this.publish(event.type, dataOf(event), event.at);
  };

  /** Waits until every event published so far is stored (or failed and was logged). */
  async flush(): Promise<{ failures: number }> {
    await Promise.all(this.acks.splice(0));
    return { failures: this.failures };
  }
}
