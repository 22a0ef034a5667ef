import type { OrchestratorTools } from '../orchestrator-tools.js';
import { executionOutcomeOf, executionOutcomeOfError, executorCall, type CustomExecutor } from './custom-executor.js';
import type { ExecutionOutcome, FireContext, FireExecutor } from './fire-executor.js';
import { ErrorCodes } from '../error-codes.js';

interface Waiting {
  fire: FireContext;
  signal: AbortSignal;
  resolve: (outcome: ExecutionOutcome) => void;
}

/**
 * Sends custom-executor fires that start in the same turn of the event loop (a burst of
 * coinciding fires) to the orchestrator's tool gate as batches (CallToolBatch): one request per
 * executor for up to `maxBatch` fires, each naming its tenant and profile, instead of one each.
 * The gate checks every fire on its own and sends those it admits to the runner as one batch
 * (tool protocol "Batched calls"), one by one where the runner serves no batches, and again alone
 * for calls the runner answered `busy` (with the client's busy retries). Every fire keeps its own
 * call id, deadline and outcome, exactly as when sent alone; nothing waits for a batch to fill.
 */
export class BatchingCustomExecutor implements FireExecutor {
  /** Fires waiting for the end of this turn of the event loop, by executor. */
  private readonly pending = new Map<string, Waiting[]>();
  private flushScheduled = false;

  constructor(
    private readonly tools: OrchestratorTools,
    private readonly single: CustomExecutor,
    private readonly settings: { timeoutMs: number; maxBatch: number },
  ) {}

  execute(fire: FireContext, signal: AbortSignal): Promise<ExecutionOutcome> {
    const executor = fire.spec.executor;
    if (this.settings.maxBatch <= 1) return this.single.execute(fire, signal);
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
    if (group.length === 1) {
      first.resolve(await this.single.execute(first.fire, first.signal));
      return;
    }
    try {
      const results = await this.tools.callBatch(
        group.map(({ fire }) => executorCall(fire, this.settings.timeoutMs)),
        first.signal,
      );
      group.forEach(({ resolve }, index) => resolve(executionOutcomeOf(results[index]!)));
    } catch (err) {
      let outcome: ExecutionOutcome;
      try {
        outcome = executionOutcomeOfError(err);
      } catch (unexpected) {
        outcome = {
          status: 'failed',
          code: ErrorCodes.EXECUTOR_FAILED,
          message: (unexpected as Error)?.message ?? String(unexpected),
          retryable: true,
        };
      }
      for (const { resolve } of group) resolve(outcome);
    }
  }
}
