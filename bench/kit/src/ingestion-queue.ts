import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { MEMORY_INGEST_STREAM } from '@platform/contracts';
import { performance } from 'node:perf_hooks';

/** The memory service's durable consumer of the ingestion work queue (apps/memory's ingest consumer). */
export const MEMORY_INGEST_CONSUMER = 'memory-ingest';

/** A work queue's stream and its durable consumer. */
export interface WorkQueue {
  stream: string;
  consumer: string;
}

const MEMORY_INGEST_QUEUE: WorkQueue = { stream: MEMORY_INGEST_STREAM, consumer: MEMORY_INGEST_CONSUMER };

/**
 * Waits until the memory service has taken every published turn off the ingestion work queue (or
 * `queue`'s consumer every message off its stream), so work deferred past a measured phase is not
 * hidden (nor left to run into the next one); returns how long that took.
 */
export async function waitForIngestionDrain(
  nc: NatsConnection,
  pollMs = 50,
  queue: WorkQueue = MEMORY_INGEST_QUEUE,
): Promise<number> {
  const started = performance.now();
  const jsm = await jetstreamManager(nc);
  for (;;) {
    const info = await jsm.consumers.info(queue.stream, queue.consumer).catch(() => undefined);
    if (!info || info.num_pending + info.num_ack_pending === 0) return performance.now() - started;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
