import { TRIGGERED_RUN_SUBJECT_PREFIX, TRIGGERED_RUNS_STREAM, TriggeredRunFinished } from '@platform/contracts';
import { DurableConsumer, ensureStream, inTransaction, type Logger, type NatsConnection } from '@platform/service-kit';
import type pg from 'pg';
import type { Clock } from './clock.js';
import { recordFireNotifications } from './notifications/notification-outbox.js';

const CONSUMER = 'trigger-run-results';

/** How the resumed run's status ends the fire that waited for approval. */
const FIRE_STATUS: Record<string, 'succeeded' | 'failed'> = {
  completed: 'succeeded',
  failed: 'failed',
  cancelled: 'failed',
};

/**
 * Follows the ends of runs that trigger tasks started (stream `TRIGGER_RUNS`, created here, published
 * by the orchestrator). When a run that continues a triggered run after the user's decision on its
 * approval ends (its source names the run that asked, `originRunId`), the fire of that run, waiting
 * for approval, is settled with the result: `succeeded` (or `failed` when the run failed or was
 * cancelled), the task leaves PENDING_APPROVAL (ACTIVE again, or COMPLETED for a one-time task with
 * nothing left to fire), and the result goes out on the task's channels like any fire's. A run that
 * stops for another approval leaves the fire waiting. One durable consumer shared by every replica;
 * each end is acknowledged once recorded, and recording twice changes nothing.
 */
export class TriggeredRunListener {
  private readonly consumer: DurableConsumer<TriggeredRunFinished>;

  constructor(
    nc: NatsConnection,
    private readonly db: pg.Pool,
    private readonly clock: Clock,
    maxAgeMs: number,
    private readonly logger: Logger,
  ) {
    this.consumer = new DurableConsumer(nc, {
      stream: TRIGGERED_RUNS_STREAM,
      durableName: CONSUMER,
      schema: TriggeredRunFinished,
      prepare: () =>
        ensureStream(nc, { name: TRIGGERED_RUNS_STREAM, subjects: [`${TRIGGERED_RUN_SUBJECT_PREFIX}.>`], maxAgeMs }),
      handle: (finished) => this.record(finished),
      what: 'ends of triggered runs',
      logger,
    });
  }

  start(): void {
    this.consumer.start();
  }

  stop(): Promise<void> {
    return this.consumer.stop();
  }

  async record(finished: TriggeredRunFinished): Promise<void> {
    const status = FIRE_STATUS[finished.status];
    // A fire's own run is settled by its executor; a run waiting again keeps the fire waiting.
    if (!finished.originRunId || !status) return;
    const now = this.clock.now();
    await inTransaction(this.db, async (client) => {
      const result = {
        status: finished.status,
        stopReason: finished.stopReason,
        response: finished.response,
        turns: finished.turns,
        resumedRunId: finished.runId,
        approvalId: finished.approvalId || null,
      };
      const failed = status === 'failed';
      const { rows } = await client.query<{ fire_id: string }>(
        `UPDATE fires SET status = $4, result = $5::jsonb, error_code = $6, error_message = $7, finished_at = $8
         WHERE tenant_id = $1 AND task_id = $2 AND run_id = $3 AND status = 'waiting_approval' RETURNING fire_id`,
        [
          finished.tenantId,
          finished.taskId,
          finished.originRunId,
          status,
          JSON.stringify(result),
          failed ? `RUN_${finished.status.toUpperCase()}` : '',
          failed ? `the run ended ${finished.status} (${finished.stopReason}) after the approval` : '',
          new Date(now),
        ],
      );
      if (rows.length === 0) return;
      await client.query(
        `UPDATE tasks t SET last_outcome = $3, updated_at = now(),
           status = CASE
             WHEN EXISTS (SELECT 1 FROM fires f WHERE f.task_id = t.task_id AND f.status = 'waiting_approval') THEN t.status
             WHEN t.next_fire_at IS NULL AND t.trigger_type = 'schedule'
               AND NOT EXISTS (SELECT 1 FROM fires f WHERE f.task_id = t.task_id AND f.status IN ('pending', 'running')) THEN 'COMPLETED'
             ELSE 'ACTIVE' END
         WHERE t.tenant_id = $1 AND t.task_id = $2 AND t.status = 'PENDING_APPROVAL'`,
        [finished.tenantId, finished.taskId, status],
      );
      await recordFireNotifications(
        client,
        rows.map((r) => r.fire_id),
        'fire.finished',
        now,
      );
      this.logger.info(
        { tenantId: finished.tenantId, taskId: finished.taskId, runId: finished.runId, status },
        'a triggered run finished after its approval',
      );
    });
  }
}
