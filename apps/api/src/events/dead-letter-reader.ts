import { DeliverPolicy, JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  MEMORY_DEAD_LETTER_STREAM,
  MEMORY_DEAD_LETTER_SUBJECT_PREFIX,
  MemoryDeadLetter,
  memoryDeadLetterSubject,
} from '@platform/contracts';
import { jsonBody, type NatsConnection } from '@platform/service-kit';
import { z } from 'zod';

/** One dead-lettered turn as operators see it (the original body is left out: it holds the conversation). */
const DeadLetterView = z.object({
  seq: z.number().int(),
  tenantId: z.string().nullable(),
  runId: z.string().nullable(),
  reason: z.string(),
  detail: z.string(),
  deliveries: z.number().int(),
  deadAt: z.string(),
  originalSubject: z.string(),
});
type DeadLetterView = z.infer<typeof DeadLetterView>;

export const DeadLetterPage = z.object({
  deadLetters: z.array(DeadLetterView),
  /** Dead letters the stream holds in all (of every tenant). */
  total: z.number().int().meta({ description: 'Dead letters the stream holds in all (of every tenant).' }),
  /** Pass as `afterSeq` for the next page; null on the last one. */
  nextAfterSeq: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'Pass as `afterSeq` for the next page; null on the last one.' }),
});
export type DeadLetterPage = z.infer<typeof DeadLetterPage>;

/**
 * Reads memory's dead-letter stream (`MEMORY_INGEST_DEAD`) oldest first, optionally of one
 * tenant, with a short-lived ordered consumer: a read-only view for operators.
 */
export class DeadLetterReader {
  constructor(private readonly nc: NatsConnection) {}

  async list(options: { tenantId?: string | undefined; afterSeq: number; limit: number }): Promise<DeadLetterPage> {
    const jsm = await jetstreamManager(this.nc);
    let total: number;
    try {
      total = (await jsm.streams.info(MEMORY_DEAD_LETTER_STREAM)).state.messages;
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)
        return { deadLetters: [], total: 0, nextAfterSeq: null };
      throw err;
    }
    const consumer = await jetstream(this.nc).consumers.get(MEMORY_DEAD_LETTER_STREAM, {
      filter_subjects: options.tenantId
        ? memoryDeadLetterSubject(options.tenantId)
        : `${MEMORY_DEAD_LETTER_SUBJECT_PREFIX}.>`,
      ...(options.afterSeq > 0
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: options.afterSeq + 1 }
        : { deliver_policy: DeliverPolicy.All }),
    });
    try {
      const pending = (await consumer.info()).num_pending;
      const wanted = Math.min(options.limit, pending);
      const deadLetters: DeadLetterView[] = [];
      let lastSeq = options.afterSeq;
      while (deadLetters.length < wanted) {
        const message = await consumer.next({ expires: 5_000 });
        if (!message) break;
        lastSeq = message.seq;
        const parsed = MemoryDeadLetter.safeParse(jsonBody(message));
        deadLetters.push(
          parsed.success
            ? {
                seq: message.seq,
                tenantId: parsed.data.tenantId ?? null,
                runId: parsed.data.runId ?? null,
                reason: parsed.data.reason,
                detail: parsed.data.detail,
                deliveries: parsed.data.deliveries,
                deadAt: parsed.data.deadAt,
                originalSubject: parsed.data.originalSubject,
              }
            : {
                seq: message.seq,
                tenantId: null,
                runId: null,
                reason: 'unreadable_dead_letter',
                detail: 'the dead letter does not match its schema',
                deliveries: 0,
                deadAt: message.time.toISOString(),
                originalSubject: message.subject,
              },
        );
      }
      return { deadLetters, total, nextAfterSeq: pending > deadLetters.length ? lastSeq : null };
    } finally {
      await consumer.delete().catch(() => undefined);
    }
  }
}
