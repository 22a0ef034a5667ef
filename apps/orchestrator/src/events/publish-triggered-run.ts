import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { triggeredRunSubject, type TriggeredRunFinished } from '@platform/contracts';
import type { Logger, NatsConnection } from '@platform/service-kit';
import type { LoopResult } from '@platform/agent-loop';
import type { ClaimedRun } from '../journal/run-records.js';
import { runStatus } from '../run-status.js';

/**
 * The post-process step of a run a trigger task's message started: its end is published for the
 * trigger service (stream `TRIGGER_RUNS`, message id the run id), which settles the task's fire
 * that waited for the user's approval with it and delivers the result on the task's channel.
 * Published before the run is recorded finished, so an orchestrator that dies in between publishes
 * again when the run is resumed (the stream dedupes the run id); a publish that fails is logged and
 * never fails the turn. Runs of users' messages publish nothing.
 */
/** How long a publish waits for the stream's ack before it is logged as lost (the trigger's stream). */
export const TRIGGERED_RUN_PUBLISH_TIMEOUT_MS = 5_000;

export class TriggeredRunPublisher {
  private readonly js: JetStreamClient;

  constructor(
    nc: NatsConnection,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {
    this.js = jetstream(nc, { timeout: timeoutMs });
  }

  async publish(run: ClaimedRun, result: LoopResult): Promise<void> {
    if (!run.source) return;
    const finished: TriggeredRunFinished = {
      tenantId: run.tenantId,
      taskId: run.source.taskId,
      triggerType: run.source.triggerType,
      runId: run.runId,
      conversationId: run.conversationId,
      status: runStatus(result),
      stopReason: result.stopReason,
      response: result.response,
      turns: result.turns,
      approvalId: run.approval?.approvalId ?? '',
      originRunId: run.source.originRunId ?? '',
      finishedAt: new Date().toISOString(),
    };
    try {
      await this.js.publish(triggeredRunSubject(run.tenantId), JSON.stringify(finished), {
        msgID: run.runId,
        timeout: this.timeoutMs,
      });
    } catch (err) {
      this.logger.warn(
        { runId: run.runId, taskId: run.source.taskId, err: (err as Error).message },
        'could not publish the end of a triggered run; the trigger service does not see it',
      );
    }
  }
}
