import type { LoopResult } from '@platform/agent-loop';
import type { Logger } from '@platform/service-kit';
import type { CancelBroadcast } from './cancel-broadcast.js';
import { isLive, type RunRecord, type RunRecords } from './journal/run-records.js';
import { syntheticResult } from './turn/turn-steps.js';

export interface RunCancellationDependencies {
  records: RunRecords;
  cancels: CancelBroadcast;
  /** Cancels a run if this replica executes it. */
  cancelLocal: (runId: string) => boolean;
  /** Publishes the final events of a run that was cancelled before it ran. */
  announceCancelled: (run: RunRecord) => Promise<void>;
  logger: Logger;
}

function cancelledBeforeRunning(record: RunRecord): LoopResult {
  return syntheticResult(record.runId, 'cancelled', 'This message was cancelled before it was processed.');
}

/**
 * Cancels a run and every live run below it (its delegations' child runs, theirs, ...): a queued
 * run is finished as cancelled at once, a running one is flagged and stopped by its holder (here,
 * or told by the broadcast).
 */
export class RunCancellation {
  constructor(private readonly deps: RunCancellationDependencies) {}

  /** Undefined when the tenant has no such run; `accepted` false when it was not live. */
  async cancel(tenantId: string, runId: string): Promise<{ run: RunRecord; accepted: boolean } | undefined> {
    const before = await this.deps.records.get(tenantId, runId);
    if (!before) return undefined;
    if (!isLive(before.status)) return { run: before, accepted: false };
    const after = await this.cancelOne(tenantId, runId);
    for (const child of await this.deps.records.liveDescendants(tenantId, runId)) await this.cancelOne(tenantId, child);
    return { run: after ?? before, accepted: true };
  }

  private async cancelOne(tenantId: string, runId: string): Promise<RunRecord | undefined> {
    const after = await this.deps.records.requestCancel(tenantId, runId, cancelledBeforeRunning);
    if (after?.status === 'running' && !this.deps.cancelLocal(runId)) this.deps.cancels.publish(runId);
    if (after?.status === 'cancelled') await this.deps.announceCancelled(after);
    this.deps.logger.info({ runId, status: after?.status }, 'run cancellation requested');
    return after;
  }
}
