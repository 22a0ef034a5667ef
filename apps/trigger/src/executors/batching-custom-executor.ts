import type { Logger } from '@platform/service-kit';
import type { ToolClient } from '@platform/tool-sdk';
import { executionOutcomeOf, executorArguments, type CustomExecutor } from './custom-executor.js';
import type { ExecutionOutcome, FireContext, FireExecutor } from './fire-executor.js';

/** After a runner answered "no batches here", its executor's fires go one by one for this long. */
const UNSUPPORTED_RECHECK_MS = 60_000;

interface Waiting {
  fire: FireContext;
  signal: AbortSignal;
  resolve: (outcome: ExecutionOutcome) => void;
}

/**
 * Sends custom-executor fires that start in the same turn of the event loop (a burst of
 * coinciding fires) to their runner as batches: one request per executor (each fire names its tenant) for up to
 * `maxBatch` fires, instead of one each (tool protocol "Batched calls"). Every fire keeps its own
 * call id, deadline and outcome, exactly as when sent alone; nothing waits for a batch to fill.
 * Executors whose runners do not serve batches get their fires one by one (`single`), and so do
 * the fires a runner answered `busy` in a batch (sent alone, they get the client's busy retries).
 */
export class BatchingCustomExecutor implements FireExecutor {
  /** Fires waiting for the end of this turn of the event loop, by executor. */
  private readonly pending = new Map<string, Waiting[]>();
  private flushScheduled = false;
  /** Executors whose runners had no batch subscriber, until when to send their fires alone. */
  private readonly unbatched = new Map<string, number>();

  constructor(
    private readonly tools: ToolClient,
    private readonly single: CustomExecutor,
    private readonly settings: { timeoutMs: number; maxBatch: number },
    private readonly logger: Logger,
  ) {}

  execute(fire: FireContext, signal: AbortSignal): Promise<ExecutionOutcome> {
    const executor = fire.spec.executor;
    if (this.settings.maxBatch <= 1 || (this.unbatched.get(executor) ?? 0) > Date.now()) return this.single.execute(fire, signal);
    return new Promise((resolve) => {
      const group = this.pending.get(executor) ?? [];
      group.push({ fire, signal, resolve });
      if (group.length >= this.settings.maxBatch) {
        this.pending.delete(executor);
        void this.send(group);
        return;
      }
      this.pending.set(executor, group);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const groups = [...this.pending.values()];
    this.pending.clear();
    for (const group of groups) void this.send(group);
  }

  /** Sends one group; resolves every fire in it, whatever happens. */
  private async send(group: Waiting[]): Promise<void> {
    const first = group[0]!;
    const executor = first.fire.spec.executor;
    if (group.length === 1) {
      first.resolve(await this.single.execute(first.fire, first.signal));
      return;
    }
    const deadlineAt = Date.now() + this.settings.timeoutMs;
    const answered = await this.tools.callBatch({
      toolName: executor,
      calls: group.map(({ fire }) => ({ callId: fire.fireId, tenantId: fire.tenantId, conversationId: fire.taskId, deadlineAt, arguments: executorArguments(fire) })),
      signal: first.signal,
    });
    if (answered.status === 'unsupported') {
      this.logger.info({ executor }, 'no runner of this executor serves batches; its fires are sent one by one');
      this.unbatched.set(executor, Date.now() + UNSUPPORTED_RECHECK_MS);
      await Promise.all(group.map(async ({ fire, signal, resolve }) => resolve(await this.single.execute(fire, signal))));
      return;
    }
    await Promise.all(
      group.map(async ({ fire, signal, resolve }, index) => {
        const answer = answered.answers[index]!;
        // A call past the runner's free slots ran nothing: sent alone it may reach another replica (busy retries).
        resolve(answer.status === 'busy' ? await this.single.execute(fire, signal) : executionOutcomeOf(answer));
      }),
    );
  }
}
