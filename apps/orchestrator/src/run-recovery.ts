import type { Logger } from '@platform/service-kit';
import type { RunRecords } from './journal/run-records.js';
import type { ConversationQueue } from './ordering/conversation-queue.js';

/**
 * Finds live runs nobody holds (their orchestrator died, and no caller is waiting to take them
 * over) and hands their conversations to the queue, which resumes them from the journal. Every
 * replica runs it; the conversation lease decides who works.
 */
export class RunRecovery {
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(
    private readonly records: RunRecords,
    private readonly queue: ConversationQueue,
    private readonly options: { intervalMs: number; leaseMs: number; logger: Logger },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async sweep(): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    try {
      const orphans = await this.records.orphanedConversations(this.options.leaseMs, 100);
      for (const { tenantId, conversationId } of orphans) this.queue.kick(tenantId, conversationId);
      if (orphans.length) this.options.logger.info({ conversations: orphans.length }, 'resuming runs left unfinished');
      return orphans.length;
    } catch (err) {
      this.options.logger.warn({ err: (err as Error).message }, 'recovery sweep failed');
      return 0;
    } finally {
      this.sweeping = false;
    }
  }
}
