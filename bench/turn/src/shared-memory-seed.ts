// Gives the "ingestion off" platform of the A/B the long-term memory the "on" platform built in its
// warm-up, so both recall over the same knowledge and the comparison measures ingestion alone, not
// ingestion plus recall over what it stored against recall over an empty memory. The finished-turn
// messages the "on" orchestrator publishes are copied off the wire (a plain subscription beside the
// memory service's durable consumer, which still gets every one) and published again, unchanged, to
// the "off" platform's ingestion stream, which its memory service consumes as usual.
import { jetstream } from '@nats-io/jetstream';
import { MEMORY_INGEST_SUBJECT_PREFIX } from '@platform/contracts';
import type { NatsConnection } from '@platform/service-kit';

export interface CapturedTurns {
  /** Stops copying; returns the messages copied so far (subject and body), in arrival order. */
  stop(): Promise<{ subject: string; body: Uint8Array }[]>;
}

/** Starts copying every finished-turn message published on `nc`'s server. */
export async function captureFinishedTurns(nc: NatsConnection): Promise<CapturedTurns> {
  const copied: { subject: string; body: Uint8Array }[] = [];
  const subscription = nc.subscribe(`${MEMORY_INGEST_SUBJECT_PREFIX}.>`, {
    callback: (err, message) => {
      if (!err) copied.push({ subject: message.subject, body: message.data.slice() });
    },
  });
  // The subscription must be known to the server before the first turn is published.
  await nc.flush();
  return {
    async stop() {
      await nc.flush();
      subscription.unsubscribe();
      return copied;
    },
  };
}

/** Publishes the copied messages to `nc`'s ingestion stream (each acknowledged by the stream); returns how many. */
export async function replayFinishedTurns(
  nc: NatsConnection,
  turns: readonly { subject: string; body: Uint8Array }[],
): Promise<number> {
  const js = jetstream(nc);
  for (const turn of turns) await js.publish(turn.subject, turn.body);
  return turns.length;
}
