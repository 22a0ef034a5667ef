import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type Consumer, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import {
  MEMORY_DEAD_LETTER_STREAM,
  MEMORY_DEAD_LETTER_SUBJECT_PREFIX,
  MEMORY_INGEST_STREAM,
  MEMORY_INGEST_SUBJECT_PREFIX,
  memoryDeadLetterSubject,
  MemoryDeadLetter,
  RunId,
  TenantId,
  TurnFinished,
  type MemoryDeadLetterReason,
} from '@platform/contracts';
import { isModelError } from '@platform/agent-loop';
import { ensureStream, type Logger, type NatsConnection } from '@platform/service-kit';
import { observeConsumerLag, recordMemoryIngestion, runInMessagingBatchSpan } from '@platform/telemetry';
import { InvalidExtractionError } from '../extraction/extractor.js';
import type { ForegroundActivity } from './foreground-activity.js';
import { MessageBatcher } from './message-batcher.js';
import type { IngestResult, TurnIngestor } from './turn-ingestor.js';

export const INGEST_CONSUMER = 'memory-ingest';
/** Batches one replica works on at once (one gathering its turns' extractions while another commits). */
const BATCHES_IN_FLIGHT = 2;

export interface IngestConsumerSettings {
  maxDeliveries: number;
  ackWaitMs: number;
  retryBaseMs: number;
  /** Turns taken off the queue and stored together (one transaction, one embeddings request). */
  batchSize: number;
  /** How long a batch waits for more turns after its first one. */
  batchWaitMs: number;
  maxAgeMs: number;
  deadLetterMaxAgeMs: number;
  lagPollMs: number;
  /** Fault injection for crash tests: wait this long between the commit and the ack (0 in production). */
  ackDelayMs: number;
  /** The most a batch that is not full waits for the foreground's running calls to end (0: never). */
  yieldMs: number;
}

/** Creates the work-queue and dead-letter streams (idempotent; every replica may call it). */
export async function ensureIngestStreams(
  nc: NatsConnection,
  settings: Pick<IngestConsumerSettings, 'maxAgeMs' | 'deadLetterMaxAgeMs'>,
): Promise<void> {
  await ensureStream(nc, {
    name: MEMORY_INGEST_STREAM,
    subjects: [`${MEMORY_INGEST_SUBJECT_PREFIX}.>`],
    maxAgeMs: settings.maxAgeMs,
    retention: 'workqueue',
    duplicateWindowMs: 10 * 60_000,
  });
  await ensureStream(nc, {
    name: MEMORY_DEAD_LETTER_STREAM,
    subjects: [`${MEMORY_DEAD_LETTER_SUBJECT_PREFIX}.>`],
    maxAgeMs: settings.deadLetterMaxAgeMs,
  });
}

/**
 * The durable consumer of finished turns, shared by every memory replica (each turn goes to one).
 * Turns are taken in batches (up to `batchSize`, or what arrived within `batchWaitMs`) and stored
 * together. A turn is acknowledged only after its transaction committed (or it was found already stored);
 * a failure is retried with growing delays; after `maxDeliveries` deliveries, or at once for a
 * message that can never succeed (malformed), it goes to the dead-letter stream with its reason
 * and is terminated, so the queue goes on. One bad message never ends the loop.
 */
export class IngestConsumer {
  private stopped = false;
  private closeMessages: (() => Promise<void>) | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private lag: number | undefined;
  private lagTimer: NodeJS.Timeout | undefined;
  private stopLagMetric: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private batcher: MessageBatcher<JsMsg> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly ingestor: Pick<TurnIngestor, 'ingestBatch'>,
    private readonly settings: IngestConsumerSettings,
    private readonly logger: Logger,
    private readonly foreground?: ForegroundActivity,
  ) {}

  /** The latest lag reading (pending + unacknowledged), for readiness and tests. */
  get currentLag(): number | undefined {
    return this.lag;
  }

  async start(): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    await jsm.consumers.add(MEMORY_INGEST_STREAM, {
      durable_name: INGEST_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(this.settings.ackWaitMs),
      // Dead-lettering is ours (with a reason); the server must never drop a message by itself.
      max_deliver: -1,
      max_ack_pending: this.settings.batchSize * (BATCHES_IN_FLIGHT + 2),
    });
    const consumer = await jetstream(this.nc).consumers.get(MEMORY_INGEST_STREAM, INGEST_CONSUMER);
    this.stopLagMetric = observeConsumerLag(INGEST_CONSUMER, () => this.lag);
    this.lagTimer = setInterval(() => void this.readLag(consumer), this.settings.lagPollMs);
    this.lagTimer.unref();
    await this.readLag(consumer);
    const messages = await consumer.consume({ max_messages: this.settings.batchSize });
    this.closeMessages = async () => void (await messages.close());
    this.batcher = new MessageBatcher<JsMsg>(this.settings.batchSize, this.settings.batchWaitMs, (batch) => {
      const task = this.handleBatch(batch).catch((err: unknown) =>
        this.logger.error({ err }, 'ingestion task failed unexpectedly'),
      );
      this.inFlight.add(task);
      void task.finally(() => this.inFlight.delete(task));
    });
    const batcher = this.batcher;
    this.loop = (async () => {
      for await (const message of messages) {
        if (this.stopped) {
          message.nak();
          break;
        }
        batcher.add(message);
        while (this.inFlight.size >= BATCHES_IN_FLIGHT) await Promise.race(this.inFlight);
      }
    })();
  }

  /** Stops taking turns and lets those in flight finish (an unfinished one is redelivered elsewhere). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.lagTimer);
    this.stopLagMetric?.();
    await this.closeMessages?.().catch(() => undefined);
    // Turns gathered for a batch that has not started go back to the queue at once.
    for (const message of this.batcher?.takePending() ?? []) message.nak();
    await Promise.allSettled([...this.inFlight]);
    await this.loop?.catch(() => undefined);
  }

  private async readLag(consumer: Consumer): Promise<void> {
    try {
      const info = await consumer.info(false);
      this.lag = info.num_pending + info.num_ack_pending;
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'could not read the ingestion consumer lag');
    }
  }

  private async handleBatch(messages: readonly JsMsg[]): Promise<void> {
    const started = performance.now();
    const valid: { message: JsMsg; turn: TurnFinished }[] = [];
    for (const message of messages) {
      let body: unknown;
      try {
        body = message.json();
      } catch {
        body = undefined;
      }
      const turn = TurnFinished.safeParse(body);
      if (turn.success) {
        valid.push({ message, turn: turn.data });
        continue;
      }
      await this.deadLetter(
        message,
        'malformed_message',
        `not a TurnFinished message: ${turn.error.issues[0]?.path.join('.') || '(root)'} ${turn.error.issues[0]?.message ?? ''}`.trim(),
        namedTenant(body),
      );
      recordMemoryIngestion('dead_lettered', (performance.now() - started) / 1000);
    }
    if (valid.length === 0) return;
    // A slow model must not get the turns redelivered to another replica while this one works on them.
    const heartbeat = setInterval(
      () => valid.forEach((v) => v.message.working()),
      Math.max(1_000, Math.floor(this.settings.ackWaitMs / 2)),
    );
    try {
      // Turns wait for this replica's recalls (a turn waits for those) to end first, for a bounded
      // time: ingestion's reads, writes and embeddings then fall between bursts of turns instead of
      // delaying their recalls. A full batch means turns are queueing: it goes at once.
      if (messages.length < this.settings.batchSize) await this.foreground?.quiet(this.settings.yieldMs);
      // The batch's own trace: its extraction and embeddings requests and its statements are its children.
      const results = await runInMessagingBatchSpan(
        { destination: MEMORY_INGEST_STREAM, consumerGroup: INGEST_CONSUMER, messageCount: valid.length },
        () => this.ingestor.ingestBatch(valid.map((v) => v.turn)),
      );
      if (this.settings.ackDelayMs > 0) await new Promise((r) => setTimeout(r, this.settings.ackDelayMs));
      const settled = await Promise.allSettled(
        valid.map((v, i) => this.settle(v.message, v.turn, results[i]!, started)),
      );
      for (const s of settled)
        if (s.status === 'rejected')
          this.logger.warn(
            { err: (s.reason as Error).message },
            'could not acknowledge an ingested turn; its redelivery will be recognised',
          );
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Acknowledges a committed turn, or schedules a failed one for redelivery (dead-lettered after `maxDeliveries`). */
  private async settle(message: JsMsg, turn: TurnFinished, result: IngestResult, started: number): Promise<void> {
    const { tenantId, runId } = turn;
    const deliveries = message.info.deliveryCount;
    if (result.ok) {
      await message.ackAck();
      recordMemoryIngestion(result.outcome.status, (performance.now() - started) / 1000);
      this.logger.info({ tenantId, runId, deliveries, ...result.outcome }, 'turn ingested');
      return;
    }
    const err = result.error;
    const reason: MemoryDeadLetterReason =
      err instanceof InvalidExtractionError
        ? 'invalid_extraction'
        : isModelError(err)
          ? 'extraction_failed'
          : 'storage_failed';
    const detail = (err as Error).message;
    if (deliveries >= this.settings.maxDeliveries) {
      await this.deadLetter(message, reason, detail, turn);
      recordMemoryIngestion('dead_lettered', (performance.now() - started) / 1000);
      return;
    }
    const delay = Math.min(this.settings.retryBaseMs * 2 ** (deliveries - 1), 5 * 60_000);
    this.logger.warn(
      { tenantId, runId, deliveries, reason, err: detail, retryInMs: delay },
      'could not ingest a turn; it will be redelivered',
    );
    message.nak(delay);
    recordMemoryIngestion('retried', (performance.now() - started) / 1000);
  }

  /** Keeps the message on the dead-letter stream with its reason, then terminates it; if that publish fails, it is redelivered. */
  private async deadLetter(
    message: JsMsg,
    reason: MemoryDeadLetterReason,
    detail: string,
    turn: { tenantId: string; runId?: string } | undefined,
  ): Promise<void> {
    const letter = MemoryDeadLetter.parse({
      type: 'memory.dead_letter',
      ...(turn ? { tenantId: turn.tenantId, ...(turn.runId ? { runId: turn.runId } : {}) } : {}),
      reason,
      detail: detail.slice(0, 4_000),
      deliveries: message.info.deliveryCount,
      originalSubject: message.subject,
      originalBody: new TextDecoder().decode(message.data),
      deadAt: new Date().toISOString(),
    });
    const subject = turn
      ? memoryDeadLetterSubject(turn.tenantId)
      : `${MEMORY_DEAD_LETTER_SUBJECT_PREFIX}._unknown.turn`;
    try {
      await jetstream(this.nc).publish(subject, JSON.stringify(letter), {
        msgID: `dead:${message.info.stream}:${message.seq}`,
      });
      // No reason argument: servers before 2.10 ignore a "+TERM <reason>" ack; the reason is on the dead letter.
      message.term();
      this.logger.error(
        { tenantId: turn?.tenantId, runId: turn?.runId, reason, detail: letter.detail, deliveries: letter.deliveries },
        'turn dead-lettered',
      );
    } catch (err) {
      this.logger.error(
        { err: (err as Error).message, reason },
        'could not dead-letter a turn; it will be redelivered',
      );
      message.nak(this.settings.retryBaseMs);
    }
  }
}

/** The tenant (and run) a malformed message names, when it names valid ones: its dead letter is filed under that tenant. */
function namedTenant(body: unknown): { tenantId: string; runId?: string } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const tenant = TenantId.safeParse((body as { tenantId?: unknown }).tenantId);
  if (!tenant.success) return undefined;
  const run = RunId.safeParse((body as { runId?: unknown }).runId);
  return { tenantId: tenant.data, ...(run.success ? { runId: run.data } : {}) };
}
