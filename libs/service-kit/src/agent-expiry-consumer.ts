import { AGENT_POOL_EVENT_SUBJECT_PREFIX, AGENT_POOL_EVENTS_STREAM, AgentExpiredEvent } from '@platform/contracts';
import { DurableConsumer } from './durable-consumer.js';
import type { Logger } from 'pino';
import type { NatsConnection } from '@nats-io/nats-core';

/**
 * A durable consumer of the agent pool's expiry events (`<prefix>.*.expired` on its stream, which
 * the pool creates), shared by every replica of the service that names it: each event reaches one
 * replica, and is acknowledged once `handle` resolves.
 */
export function agentExpiryConsumer(
  nc: NatsConnection,
  durableName: string,
  handle: (event: AgentExpiredEvent) => Promise<void>,
  logger: Logger,
): DurableConsumer<AgentExpiredEvent> {
  return new DurableConsumer(nc, {
    stream: AGENT_POOL_EVENTS_STREAM,
    durableName,
    filterSubject: `${AGENT_POOL_EVENT_SUBJECT_PREFIX}.*.expired`,
    schema: AgentExpiredEvent,
    handle,
    what: 'agent expiry events (the agent pool creates their stream)',
    logger,
  });
}
