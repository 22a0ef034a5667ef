import { RUN_ENDED_SUBJECT_PREFIX, RunEnded } from '@platform/contracts';
import type { Logger, NatsConnection } from '@platform/service-kit';
import type { WorkingMemoryStore } from './working-memory-store.js';

/** Queue group: each notice is handled by one memory replica. */
const RUN_END_QUEUE = 'memory-run-end';

/** Runs whose working memory one statement drops at most. */
const MAX_RUNS_PER_DELETE = 500;

/** What the listener needs of the working memory: dropping several runs' entries in one statement. */
export type RunsClearer = Pick<WorkingMemoryStore, 'clearRuns'>;

/**
 * Drops a run's working memory when the orchestrator announces the run's end (`RunEnded`, sent
 * after its `execution_end`). Notices are core NATS: one missed while memory was down is covered
 * by the ingestion of the run's turn and by `MEMORY_WORKING_MEMORY_TTL_MS`.
 *
 * Runs ending while a delete is in flight are dropped together by the next one (one statement for
 * all of them, as ingestion's `clearRuns`): a lone notice is handled at once, and under load a
 * turn no longer costs a statement of its own.
 */
export class RunEndListener {
  private subscription: ReturnType<NatsConnection['subscribe']> | undefined;
  private loop: Promise<void> | undefined;
  private pending: Array<{ tenantId: string; runId: string }> = [];
  private deleting: Promise<void> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly workingMemory: RunsClearer,
    private readonly logger: Logger,
  ) {}

  start(): void {
    const subscription = this.nc.subscribe(`${RUN_ENDED_SUBJECT_PREFIX}.*`, { queue: RUN_END_QUEUE });
    this.subscription = subscription;
    this.loop = (async () => {
      for await (const msg of subscription) {
        const notice = RunEnded.safeParse(safeJson(msg.string()));
        if (!notice.success) {
          this.logger.warn(
            { subject: msg.subject, err: notice.error.message },
            'ignoring a malformed run-ended notice',
          );
          continue;
        }
        this.pending.push({ tenantId: notice.data.tenantId, runId: notice.data.runId });
        this.deleting ??= this.deletePending().finally(() => (this.deleting = undefined));
      }
    })();
  }

  /** Deletes what is pending, then what arrived meanwhile, until nothing is. */
  private async deletePending(): Promise<void> {
    while (this.pending.length > 0) {
      const runs = this.pending.splice(0, MAX_RUNS_PER_DELETE);
      await this.workingMemory.clearRuns(runs).then(
        (cleared) => cleared && this.logger.debug({ runs: runs.length, cleared }, 'runs ended: working memory dropped'),
        (err: unknown) =>
          this.logger.warn(
            { runs: runs.length, err: (err as Error).message },
            'could not drop the working memory of ended runs; it expires instead',
          ),
      );
    }
  }

  async stop(): Promise<void> {
    await this.subscription?.drain().catch(() => undefined);
    await this.loop;
    await this.deleting;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
