import { jetstream } from '@nats-io/jetstream';
import { memoryIngestSubject, type TurnFinished } from '@platform/contracts';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForegroundActivity } from './foreground-activity.js';
import { ensureIngestStreams, IngestConsumer, type IngestConsumerSettings } from './ingest-consumer.js';
import type { IngestResult } from './turn-ingestor.js';

// Ingestion lets this replica's running recalls finish before it stores a batch, for a bounded
// time, unless the batch is full (turns are queueing). A stub ingestor records when each batch
// reached it; the queue, the consumer and its acknowledgements are real (a private NATS server).

const logger = createLogger({ service: 'ingest-yield-test', level: 'silent' });
const BATCH_SIZE = 4;
const settings = (yieldMs: number): IngestConsumerSettings => ({
  maxDeliveries: 3,
  ackWaitMs: 30_000,
  retryBaseMs: 100,
  batchSize: BATCH_SIZE,
  batchWaitMs: 20,
  maxAgeMs: 3_600_000,
  deadLetterMaxAgeMs: 3_600_000,
  lagPollMs: 60_000,
  ackDelayMs: 0,
  yieldMs,
});

let nats: NatsServerHandle;
let nc: NatsConnection;
let consumer: IngestConsumer | undefined;
let published = 0;

beforeEach(async () => {
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'ingest-yield-test', logger });
  await ensureIngestStreams(nc, { maxAgeMs: 3_600_000, deadLetterMaxAgeMs: 3_600_000 });
});
afterEach(async () => {
  await consumer?.stop();
  consumer = undefined;
  await nc.drain();
  await nats.stop();
});

/** Starts the consumer with a stub ingestor that stores nothing and says every turn was stored; returns when each batch reached it, and its size. */
async function startConsumer(
  yieldMs: number,
  foreground: ForegroundActivity,
): Promise<{ batches: { at: number; turns: number }[] }> {
  const batches: { at: number; turns: number }[] = [];
  const ingestor = {
    ingestBatch: (turns: readonly TurnFinished[]): Promise<IngestResult[]> => {
      batches.push({ at: performance.now(), turns: turns.length });
      return Promise.resolve(
        turns.map(() => ({ ok: true, outcome: { status: 'stored' as const, facts: 0, superseded: 0 } })),
      );
    },
  };
  consumer = new IngestConsumer(nc, ingestor, settings(yieldMs), logger, foreground);
  await consumer.start();
  return { batches };
}

async function publishTurns(count: number): Promise<void> {
  const js = jetstream(nc);
  for (let i = 0; i < count; i++) {
    const runId = `run-${(published += 1)}`;
    const turn = {
      type: 'memory.turn_finished',
      tenantId: 'acme',
      conversationId: `conv-${runId}`,
      runId,
      firstSeq: 1,
      lastSeq: 2,
      messages: [
        { seq: 1, message: { role: 'user', content: 'I moved to Berlin' } },
        { seq: 2, message: { role: 'assistant', content: 'Noted.' } },
      ],
      finishedAt: new Date().toISOString(),
    };
    await js.publish(memoryIngestSubject('acme'), JSON.stringify(turn), { msgID: runId });
  }
}

/** A foreground call (a recall) that runs until `finish` is called. */
function heldRecall(foreground: ForegroundActivity): { finish(): void; finishedAt(): number | undefined } {
  let release!: () => void;
  let finishedAt: number | undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  void foreground.track(() => held);
  return {
    finish: () => {
      finishedAt = performance.now();
      release();
    },
    finishedAt: () => finishedAt,
  };
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('ingestion yields to running recalls', () => {
  it('stores a partial batch only once the running recall has ended', async () => {
    const foreground = new ForegroundActivity();
    const { batches } = await startConsumer(30_000, foreground);
    const recall = heldRecall(foreground);
    await publishTurns(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(batches).toEqual([]);
    recall.finish();
    await until(() => batches.length === 1);
    expect(batches[0]!.at).toBeGreaterThanOrEqual(recall.finishedAt()!);
    expect(batches[0]!.turns).toBe(1);
  });

  it('waits no longer than its bound while recalls keep running', async () => {
    const foreground = new ForegroundActivity();
    const { batches } = await startConsumer(300, foreground);
    const recall = heldRecall(foreground);
    const publishedAt = performance.now();
    await publishTurns(1);
    await until(() => batches.length === 1);
    expect(batches[0]!.at - publishedAt).toBeGreaterThanOrEqual(300);
    expect(foreground.running).toBe(1);
    recall.finish();
  });

  it('stores a full batch (turns are queueing) without waiting', async () => {
    // Queued before the consumer starts, so they arrive together and fill one batch.
    await publishTurns(BATCH_SIZE);
    const foreground = new ForegroundActivity();
    const recall = heldRecall(foreground);
    const { batches } = await startConsumer(30_000, foreground);
    await until(() => batches.length === 1);
    expect(batches[0]!.turns).toBe(BATCH_SIZE);
    expect(foreground.running).toBe(1);
    recall.finish();
  });

  it('does not wait when the bound is 0', async () => {
    const foreground = new ForegroundActivity();
    const { batches } = await startConsumer(0, foreground);
    const recall = heldRecall(foreground);
    await publishTurns(1);
    await until(() => batches.length === 1);
    expect(foreground.running).toBe(1);
    recall.finish();
  });
});
