import { RUN_ENDED_SUBJECT_PREFIX, RunEnded } from '@platform/contracts';
import type { Logger, NatsConnection } from '@platform/service-kit';
import type { WorkingMemoryStore } from './working-memory-store.js';

/** Queue group: each notice is handled by one memory replica. */
export const RUN_END_QUEUE = 'memory-run-end';

/**
 * Drops a run's working memory when the orchestrator announces the run's end (`RunEnded`, sent
 * after its `execution_end`). Notices are core NATS: one missed while memory was down is covered
 * by the ingestion of the run's turn and by `MEMORY_WORKING_MEMORY_TTL_MS`.
 */
export class RunEndListener {
  private subscription: ReturnType<NatsConnection['subscribe']> | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly workingMemory: WorkingMemoryStore,
    private readonly logger: Logger,
  ) {}

  start(): void {
    const subscription = this.nc.subscribe(`${RUN_ENDED_SUBJECT_PREFIX}.*`, { queue: RUN_END_QUEUE });
    this.subscription = subscription;
    this.loop = (async () => {
      for await (const msg of subscription) {
        const notice = RunEnded.safeParse(safeJson(msg.string()));
        if (!notice.success) {
          this.logger.warn({ subject: msg.subject, err: notice.error.message }, 'ignoring a malformed run-ended notice');
          continue;
        }
        const { tenantId, runId } = notice.data;
        await this.workingMemory.clearRun(tenantId, runId).then(
          (cleared) => cleared && this.logger.debug({ tenantId, runId, cleared }, 'run ended: working memory dropped'),
          (err: unknown) => this.logger.warn({ tenantId, runId, err: (err as Error).message }, 'could not drop the working memory of an ended run; it expires instead'),
        );
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
