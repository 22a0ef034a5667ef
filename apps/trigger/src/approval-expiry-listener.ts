import type { AgentExpiredEvent } from '@platform/contracts';
import {
  agentExpiryConsumer,
  inTransaction,
  type DurableConsumer,
  type Logger,
  type NatsConnection,
} from '@platform/service-kit';
import type pg from 'pg';
import { recordFireNotifications } from './notifications/notification-outbox.js';
import { ErrorCodes } from './error-codes.js';

const CONSUMER = 'trigger-approval-expiry';

/**
 * Follows the agent pool's expiry events: when the approval a triggered run waits for expires
 * (its agent lived in the task's conversation, named by the task id), the fire that waits for it
 * fails with APPROVAL_EXPIRED and the task becomes EXPIRED. A recurring task keeps firing at its
 * next times (its status says how its last run ended); a one-time task stays EXPIRED. One durable
 * consumer shared by every replica; an event is acknowledged once recorded.
 */
export class ApprovalExpiryListener {
  private readonly consumer: DurableConsumer<AgentExpiredEvent>;

  constructor(
    nc: NatsConnection,
    private readonly db: pg.Pool,
    private readonly logger: Logger,
  ) {
    this.consumer = agentExpiryConsumer(nc, CONSUMER, (event) => this.record(event), logger);
  }

  start(): void {
    this.consumer.start();
  }

  stop(): Promise<void> {
    return this.consumer.stop();
  }

  /** Nothing happens for agents of ordinary conversations: no task has their conversation id. */
  async record(event: AgentExpiredEvent): Promise<void> {
    if (event.reason !== 'approval_timeout') return;
    await inTransaction(this.db, async (client) => {
      const { rows } = await client.query<{ fire_id: string }>(
        `UPDATE fires SET status = 'failed', error_code = $4, error_message = $3
         WHERE tenant_id = $1 AND task_id = $2 AND status = 'waiting_approval' RETURNING fire_id`,
        [event.tenantId, event.conversationId, event.message, ErrorCodes.APPROVAL_EXPIRED],
      );
      if (rows.length === 0) return;
      await client.query(
        `UPDATE tasks SET status = 'EXPIRED', last_outcome = 'failed', updated_at = now()
         WHERE tenant_id = $1 AND task_id = $2 AND status = 'PENDING_APPROVAL'`,
        [event.tenantId, event.conversationId],
      );
      // The user is told: the task's channel gets the expiry.
      await recordFireNotifications(
        client,
        rows.map((r) => r.fire_id),
        'fire.approval_expired',
        Date.now(),
      );
      this.logger.info(
        { tenantId: event.tenantId, taskId: event.conversationId, agent: event.agentName },
        'a triggered approval expired',
      );
    });
  }
}
