import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { memoryIngestMessageId, memoryIngestSubject, TurnFinished, type ChatMessage } from '@platform/contracts';
import type { Logger, NatsConnection } from '@platform/service-kit';

export interface FinishedTurn {
  tenantId: string;
  conversationId: string;
  runId: string;
  profile: string;
  /** The run's tier (empty: the default tier): memory holds the turn's new facts to its facts quota. */
  tier: string;
  /** The turn's messages, stored in the conversation as seqs firstSeq..firstSeq + n - 1. */
  messages: readonly ChatMessage[];
  firstSeq: number;
}

export interface FinishedTurnPublisherOptions {
  /** Above this many bytes the turn is published without its messages (memory reads them from history). */
  maxInlineBytes: number;
  /** Publishes waiting for their stream ack at once; past it, a turn is skipped (logged) rather than queued without bound. */
  maxPending: number;
}

/** Publishes in flight at most (`maxPending`): memory ingestion is off the turn's path, and a burst is shed, not queued. */
export const FINISHED_TURN_MAX_PENDING = 1_000;

/**
 * The post-process step that hands a finished turn to long-term memory: one message on the memory
 * ingestion work queue (JetStream), fire-and-forget. The publish is acknowledged by the stream
 * (its message id dedupes a resumed run's second publish), but the turn never waits for it and
 * never fails because of it: extraction happens in the memory service, off the turn's path.
 */
export class FinishedTurnPublisher {
  private readonly js: JetStreamClient;
  private pending = 0;

  constructor(
    nc: NatsConnection,
    private readonly options: FinishedTurnPublisherOptions,
    private readonly logger: Logger,
  ) {
    this.js = jetstream(nc);
  }

  /** Starts the publish and returns at once; the returned promise (for tests) settles with the ack or the logged failure. */
  publish(turn: FinishedTurn): Promise<void> {
    if (turn.messages.length === 0) return Promise.resolve();
    if (this.pending >= this.options.maxPending) {
      this.logger.warn(
        { runId: turn.runId, pending: this.pending },
        'memory ingestion backlog full; this turn is not sent to long-term memory',
      );
      return Promise.resolve();
    }
    let body: string;
    try {
      body = this.body(turn);
    } catch (err) {
      this.logger.error(
        { runId: turn.runId, err: (err as Error).message },
        'could not build the memory ingestion message',
      );
      return Promise.resolve();
    }
    this.pending += 1;
    return this.js
      .publish(memoryIngestSubject(turn.tenantId), body, { msgID: memoryIngestMessageId(turn.tenantId, turn.runId) })
      .then(
        (ack) =>
          this.logger.debug(
            { runId: turn.runId, seq: ack.seq, duplicate: ack.duplicate },
            'turn sent to memory ingestion',
          ),
        (err: unknown) =>
          this.logger.warn(
            { runId: turn.runId, err: (err as Error).message },
            'could not send the turn to memory ingestion; long-term memory misses it',
          ),
      )
      .finally(() => (this.pending -= 1));
  }

  private body(turn: FinishedTurn): string {
    const base = {
      type: 'memory.turn_finished' as const,
      tenantId: turn.tenantId,
      conversationId: turn.conversationId,
      runId: turn.runId,
      ...(turn.profile ? { profile: turn.profile } : {}),
      ...(turn.tier ? { tier: turn.tier } : {}),
      firstSeq: turn.firstSeq,
      lastSeq: turn.firstSeq + turn.messages.length - 1,
      finishedAt: new Date().toISOString(),
    };
    const whole = TurnFinished.parse({
      ...base,
      messages: turn.messages.map((message, i) => ({ seq: turn.firstSeq + i, message })),
    });
    const json = JSON.stringify(whole);
    return Buffer.byteLength(json) <= this.options.maxInlineBytes ? json : JSON.stringify(TurnFinished.parse(base));
  }
}
