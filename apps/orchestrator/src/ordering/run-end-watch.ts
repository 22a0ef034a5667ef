import { RUN_ENDED_SUBJECT_PREFIX, RunEnded } from '@platform/contracts';
import type { Logger, NatsConnection } from '@platform/service-kit';
import type { ConversationQueue } from './conversation-queue.js';

/** What the watch needs of the queue. */
export type RunEndReceiver = Pick<ConversationQueue, 'runEndedElsewhere' | 'waitsElsewhere'>;

/**
 * Tells this replica's conversation queue at once when another replica finished a run (the
 * `RunEnded` notice every replica sends, core NATS, no queue group: every replica hears it), so a
 * request waiting here for a run another replica drains is answered, or takes the conversation
 * over, without waiting for its next poll (`RUN_POLL_MS`, which stays as the fallback for a notice
 * lost). A notice is read only while requests here wait on runs drained elsewhere; otherwise it is
 * dropped unparsed, so the cost of hearing every run end is a message, not a parse.
 */
export class RunEndWatch {
  private subscription: ReturnType<NatsConnection['subscribe']> | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly queue: RunEndReceiver,
    private readonly logger: Logger,
  ) {}

  start(): void {
    const subscription = this.nc.subscribe(`${RUN_ENDED_SUBJECT_PREFIX}.*`);
    this.subscription = subscription;
    this.loop = (async () => {
      for await (const msg of subscription) {
        if (!this.queue.waitsElsewhere) continue;
        const notice = RunEnded.safeParse(safeJson(msg.string()));
        if (!notice.success) {
          this.logger.warn(
            { subject: msg.subject, err: notice.error.message },
            'ignoring a malformed run-ended notice',
          );
          continue;
        }
        void this.queue.runEndedElsewhere(notice.data).catch((err: unknown) => {
          this.logger.warn(
            { runId: notice.data.runId, err: (err as Error).message },
            'could not look at a run another replica finished; its waiters poll',
          );
        });
      }
    })();
  }

  async stop(): Promise<void> {
    await this.subscription?.drain().catch(() => undefined);
    await this.loop;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
