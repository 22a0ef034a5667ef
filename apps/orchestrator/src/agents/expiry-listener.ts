import { createHash } from 'node:crypto';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { AGENT_POOL_EVENT_SUBJECT_PREFIX, AGENT_POOL_EVENTS_STREAM, AgentExpiredEvent } from '@platform/contracts';
import { jsonBody, type Logger, type NatsConnection } from '@platform/service-kit';
import type { RunRecords } from '../journal/run-records.js';
import type { ConversationQueue } from '../ordering/conversation-queue.js';

const CONSUMER = 'orchestrator-agent-expiry';
const RETRY_MS = 2_000;

/** The run that records one expiry: derived from the entry, so a redelivered event adds nothing. */
export function expiryRunId(entryId: string): string {
  return `run_expired_${createHash('sha256').update(entryId).digest('hex').slice(0, 32)}`;
}

/**
 * Turns the agent pool's expiry events into the tool result the waiting call is owed: each
 * expiry becomes a small run in the agent's conversation (queued behind whatever runs there), which
 * appends a `timeout` tool result saying the action was not taken. A durable JetStream consumer
 * shared by all replicas delivers each event to one of them; an event is acknowledged once its
 * run is recorded.
 */
export class ExpiryListener {
  private stopped = false;
  private close: (() => Promise<void>) | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly records: RunRecords,
    private readonly queue: ConversationQueue,
    private readonly logger: Logger,
  ) {}

  /** Starts in the background; waits for the pool's stream to exist (the pool creates it). */
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
        this.logger.debug({ err: (err as Error).message }, 'agent expiry events not readable yet; retrying');
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
    for await (const message of messages) {
      const event = AgentExpiredEvent.safeParse(jsonBody(message));
      if (!event.success) {
        this.logger.warn({ subject: message.subject }, 'dropped a malformed agent expiry event');
        message.term();
        continue;
      }
      try {
        await this.record(event.data);
        message.ack();
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, entryId: event.data.entryId }, 'could not record an agent expiry; it will be redelivered');
        message.nak(RETRY_MS);
      }
    }
  }

  private async record(event: AgentExpiredEvent): Promise<void> {
    await this.records.create({
      runId: expiryRunId(event.entryId),
      tenantId: event.tenantId,
      conversationId: event.conversationId,
      profile: '',
      content: JSON.stringify({ callId: event.callId, agentName: event.agentName, reason: event.reason, message: event.message }),
      tier: '',
      stream: false,
      timeZone: '',
      kind: 'agent_expired',
    });
    this.queue.kick(event.tenantId, event.conversationId);
    this.logger.info({ entryId: event.entryId, agent: event.agentName, reason: event.reason }, 'a waiting agent expired');
  }
}
