import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { AGENT_POOL_EVENT_SUBJECT_PREFIX, AGENT_POOL_EVENTS_STREAM, AgentExpiredEvent } from '@platform/contracts';
import { inTransaction, jsonBody, type Logger, type NatsConnection } from '@platform/service-kit';
import type pg from 'pg';
import { recordFireNotifications } from './notifications/notification-outbox.js';

const CONSUMER = 'trigger-approval-expiry';
const RETRY_MS = 2_000;

/**
 * Follows the agent pool's expiry events: when the approval a triggered run waits for expires
 * (its agent lived in the task's conversation, named by the task id), the fire that waits for it
 * fails with APPROVAL_EXPIRED and the task becomes EXPIRED. A recurring task keeps firing at its
 * next times (its status says how its last run ended); a one-time task stays EXPIRED. One durable
 * consumer shared by every replica; an event is acknowledged once recorded.
 */
export class ApprovalExpiryListener {
  private stopped = false;
  private close: (() => Promise<void>) | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly db: pg.Pool,
    private readonly logger: Logger,
  ) {}

  start(): void {
    void this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.close?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.consume();
      } catch (err) {
        if (this.stopped) return;
        this.logger.debug({ err: (err as Error).message }, 'agent expiry events not readable yet (the agent pool creates the stream); retrying');
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  private async consume(): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    await jsm.consumers.add(AGENT_POOL_EVENTS_STREAM, {
      durable_name: CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: `${AGENT_POOL_EVENT_SUBJECT_PREFIX}.*.expired`,
      ack_wait: nanos(30_000),
    });
    const consumer = await jetstream(this.nc).consumers.get(AGENT_POOL_EVENTS_STREAM, CONSUMER);
    const messages = await consumer.consume();
    this.close = async () => void (await messages.close());
    if (this.stopped) await this.close();
    for await (const message of messages) {
      const event = AgentExpiredEvent.safeParse(jsonBody(message));
      if (!event.success) {
        message.term();
        continue;
      }
      try {
        await this.record(event.data);
        message.ack();
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, entryId: event.data.entryId }, 'could not record an approval expiry; it will be redelivered');
        message.nak(RETRY_MS);
      }
    }
  }

  /** Nothing happens for agents of ordinary conversations: no task has their conversation id. */
  async record(event: AgentExpiredEvent): Promise<void> {
    if (event.reason !== 'approval_timeout') return;
    await inTransaction(this.db, async (client) => {
      const { rows } = await client.query<{ fire_id: string }>(
        `UPDATE fires SET status = 'failed', error_code = 'APPROVAL_EXPIRED', error_message = $3
         WHERE tenant_id = $1 AND task_id = $2 AND status = 'waiting_approval' RETURNING fire_id`,
        [event.tenantId, event.conversationId, event.message],
      );
      if (rows.length === 0) return;
      await client.query(
        `UPDATE tasks SET status = 'EXPIRED', last_outcome = 'failed', updated_at = now()
         WHERE tenant_id = $1 AND task_id = $2 AND status = 'PENDING_APPROVAL'`,
        [event.tenantId, event.conversationId],
      );
      // The user is told: the task's channel gets the expiry.
      await recordFireNotifications(client, rows.map((r) => r.fire_id), 'fire.approval_expired', Date.now());
      this.logger.info({ tenantId: event.tenantId, taskId: event.conversationId, agent: event.agentName }, 'a triggered approval expired');
    });
  }
}
