import { createHash } from 'node:crypto';
import type { AgentExpiredEvent } from '@platform/contracts';
import { agentExpiryConsumer, type DurableConsumer, type Logger, type NatsConnection } from '@platform/service-kit';
import type { RunRecords } from '../journal/run-records.js';
import type { ConversationQueue } from '../ordering/conversation-queue.js';

const CONSUMER = 'orchestrator-agent-expiry';

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
  private readonly consumer: DurableConsumer<AgentExpiredEvent>;

  constructor(
    nc: NatsConnection,
    private readonly records: RunRecords,
    private readonly queue: ConversationQueue,
    private readonly logger: Logger,
  ) {
    this.consumer = agentExpiryConsumer(nc, CONSUMER, (event) => this.record(event), logger);
  }

  /** Starts in the background; waits for the pool's stream to exist (the pool creates it). */
  start(): void {
    this.consumer.start();
  }

  stop(): Promise<void> {
    return this.consumer.stop();
  }

  private async record(event: AgentExpiredEvent): Promise<void> {
    await this.records.create({
      runId: expiryRunId(event.entryId),
      tenantId: event.tenantId,
      conversationId: event.conversationId,
      profile: '',
      content: JSON.stringify({
        callId: event.callId,
        agentName: event.agentName,
        reason: event.reason,
        message: event.message,
      }),
      tier: '',
      stream: false,
      timeZone: '',
      kind: 'agent_expired',
    });
    this.queue.kick(event.tenantId, event.conversationId);
    this.logger.info(
      { entryId: event.entryId, agent: event.agentName, reason: event.reason },
      'a waiting agent expired',
    );
  }
}
