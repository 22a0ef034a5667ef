import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@platform/service-kit';
import { MEMORY_INGEST_STREAM } from '@platform/contracts';
import { INGEST_CONSUMER } from '../ingestion/ingest-consumer.js';

/** Waits until memory's ingestion consumer has nothing pending or unacknowledged (polls every 25 ms, up to `timeoutMs`). */
export async function ingestionDrained(nc: NatsConnection, timeoutMs = 15_000): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await jsm.consumers.info(MEMORY_INGEST_STREAM, INGEST_CONSUMER);
    if (info.num_pending === 0 && info.num_ack_pending === 0) return;
    if (Date.now() >= deadline)
      throw new Error(
        `ingestion did not drain: ${JSON.stringify({ pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered })}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}
