import type { LoopResult } from '@platform/agent-loop';
import type { Logger } from '@platform/service-kit';
import type { CancelBroadcast, RunNotice } from './cancel-broadcast.js';
import { isLive, type RunRecord, type RunRecords } from './journal/run-records.js';
import type { RunStops } from './journal/run-stops.js';
import type { RunSteers } from './journal/run-steers.js';
import { syntheticResult } from './turn/turn-steps.js';

export interface RunCancellationDependencies {
  records: RunRecords;
  /** A newer message's requests that a run stop (interrupt, rollback). */
  stops: Pick<RunStops, 'requestInterrupt' | 'requestRollback'>;
  /** A steering message's request to join a run. */
  steers: Pick<RunSteers, 'request'>;
  cancels: CancelBroadcast;
  /** Cancels, interrupts or tells of a steer a run this replica executes; false when it runs elsewhere. */
  local: (runId: string, notice: RunNotice) => boolean;
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
    if (!this.deps.local(runId, 'interrupt')) this.deps.cancels.publish(runId, 'interrupt');
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

  /**
   * A steering message (its run `messageRunId`, recorded queued) asks to join the run `runId`
   * before its next model call; its holder is told (here, or by the broadcast). False when the
   * message's run is not queued any more: it runs as its own turn.
   */
  async steer(tenantId: string, runId: string, messageRunId: string): Promise<boolean> {
    if (!(await this.deps.steers.request(tenantId, messageRunId, runId))) return false;
    if (!this.deps.local(runId, 'steer')) this.deps.cancels.publish(runId, 'steer');
    this.deps.logger.info({ runId, messageRunId }, 'run steer requested');
    return true;
  }

  private async cancelOne(tenantId: string, runId: string): Promise<RunRecord | undefined> {
    const after = await this.deps.records.requestCancel(tenantId, runId, cancelledBeforeRunning);
    if (after?.status === 'running' && !this.deps.local(runId, 'cancel')) this.deps.cancels.publish(runId);
    if (after?.status === 'cancelled') await this.deps.announceCancelled(after);
    this.deps.logger.info({ runId, status: after?.status }, 'run cancellation requested');
    return after;
  }
}
