import type { LoopResult } from '@platform/agent-loop';
import type { Logger } from '@platform/service-kit';
import type { CancelBroadcast } from './cancel-broadcast.js';
import { isLive, type RunRecord, type RunRecords } from './journal/run-records.js';
import type { RunStops } from './journal/run-stops.js';
import { syntheticResult } from './turn/turn-steps.js';

export interface RunCancellationDependencies {
  records: RunRecords;
  /** A newer message's requests that a run stop (interrupt, rollback). */
  stops: Pick<RunStops, 'requestInterrupt' | 'requestRollback'>;
  cancels: CancelBroadcast;
  /** Cancels a run if this replica executes it. */
  cancelLocal: (runId: string) => boolean;
  /** Interrupts a run if this replica executes it. */
  interruptLocal: (runId: string) => boolean;
  /** Publishes the final events of a run that was cancelled before it ran. */
  announceCancelled: (run: RunRecord) => Promise<void>;
  logger: Logger;
}

function cancelledBeforeRunning(record: RunRecord): LoopResult {
  // A newer message that rolled the run back withdrew it (docs/conversations.md).
  if (record.stopRequested === 'rollback')
    return syntheticResult(
      record.runId,
      'rolled_back',
      'This message was withdrawn by a newer one before it was processed.',
    );
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

  /**
   * A newer message (`byRunId`) interrupts a run: it stops at its next step boundary, and its
   * live child runs are cancelled (the step in progress waits on them: they settle, so it ends).
   * False when the run is not live, or was asked to stop already.
   */
  async interrupt(tenantId: string, runId: string, byRunId: string): Promise<boolean> {
    if (!(await this.deps.stops.requestInterrupt(tenantId, runId, byRunId))) return false;
    if (!this.deps.interruptLocal(runId)) this.deps.cancels.publish(runId, 'interrupt');
    for (const child of await this.deps.records.liveDescendants(tenantId, runId)) await this.cancelOne(tenantId, child);
    this.deps.logger.info({ runId, byRunId }, 'run interrupt requested');
    return true;
  }

  /**
   * A newer message (`byRunId`) rolls a run back: it is cancelled with its child runs, and nothing
   * of it reaches history (turn/history-seal.ts). False when it came too late (the run is not live,
   * or its history is sealed already).
   */
  async rollback(tenantId: string, runId: string, byRunId: string): Promise<boolean> {
    if (!(await this.deps.stops.requestRollback(tenantId, runId, byRunId))) return false;
    await this.cancel(tenantId, runId);
    return true;
  }

  private async cancelOne(tenantId: string, runId: string): Promise<RunRecord | undefined> {
    const after = await this.deps.records.requestCancel(tenantId, runId, cancelledBeforeRunning);
    if (after?.status === 'running' && !this.deps.cancelLocal(runId)) this.deps.cancels.publish(runId);
    if (after?.status === 'cancelled') await this.deps.announceCancelled(after);
    this.deps.logger.info({ runId, status: after?.status }, 'run cancellation requested');
    return after;
  }
}
