// Expiry events from the agent pool become queued notice runs in the agent's conversation.
import { jetstream } from '@nats-io/jetstream';
import { AGENT_POOL_EVENTS_STREAM, agentPoolEventSubject, type AgentExpiredEvent } from '@platform/contracts';
import { connectNats, createLogger, ensureStream, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunRecords } from '../journal/run-records.js';
import type { ConversationQueue } from '../ordering/conversation-queue.js';
import { expiryNoticeResult } from './expiry-notice.js';
import { ExpiryListener, expiryRunId } from './expiry-listener.js';
import { openJournalDatabase } from '../test-support/journal-database.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let server: NatsServerHandle;
let nc: NatsConnection;
let pool: pg.Pool;
let records: RunRecords;
let listener: ExpiryListener;
const kicked: string[] = [];

const event = (entryId: string): AgentExpiredEvent => ({
  type: 'agent.expired',
  eventId: `${entryId}:expired`,
  entryId,
  tenantId: 'acme.eu',
  conversationId: 'trip-9',
  runId: 'run_waiting',
  callId: 'call_email',
  agentName: 'send_email',
  reason: 'approval_timeout',
  message: 'The approval request for send_email expired; the email was not sent.',
  expiredAt: new Date().toISOString(),
});

async function waitFor<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out');
}

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'expiry-test', logger });
  pool = await openJournalDatabase('expiry', logger, 3);
  records = new RunRecords(pool);
  const queue = {
    kick: (tenantId: string, conversationId: string) => kicked.push(`${tenantId}/${conversationId}`),
  } as unknown as ConversationQueue;
  listener = new ExpiryListener(nc, records, queue, logger);
  // The listener starts before the pool created its stream, and waits for it.
  listener.start();
  await ensureStream(nc, {
    name: AGENT_POOL_EVENTS_STREAM,
    subjects: ['platform.agent-pool.events.>'],
    maxAgeMs: 60_000,
  });
});
afterAll(async () => {
  await listener.stop();
  await nc.close();
  await server.stop();
  await pool.end();
});

describe('ExpiryListener', () => {
  it('queues one notice run per expired entry in its conversation, even when the event is delivered twice', async () => {
    const js = jetstream(nc);
    const expired = event('entry-1');
    await js.publish(agentPoolEventSubject(expired.tenantId, 'expired'), JSON.stringify(expired));
    // A republish with another message id (e.g. after the pool's outbox retried) adds no second run.
    await js.publish(agentPoolEventSubject(expired.tenantId, 'expired'), JSON.stringify(expired), {
      msgID: 'another-id',
    });
    const run = await waitFor(() => records.get('acme.eu', expiryRunId('entry-1')));
    expect(run).toMatchObject({ conversationId: 'trip-9', status: 'queued' });
    await waitFor(async () => (kicked.length >= 2 ? true : undefined));
    expect(kicked.every((k) => k === 'acme.eu/trip-9')).toBe(true);
  });

  it('skips malformed events without stopping', async () => {
    const js = jetstream(nc);
    await js.publish(agentPoolEventSubject('acme.eu', 'expired'), '{"type":"nonsense"}');
    const expired = event('entry-2');
    await js.publish(agentPoolEventSubject(expired.tenantId, 'expired'), JSON.stringify(expired));
    expect(await waitFor(() => records.get('acme.eu', expiryRunId('entry-2')))).toBeDefined();
  });
});

describe('the notice run', () => {
  it('answers the expired call with a timeout tool result the model will read', () => {
    const result = expiryNoticeResult(
      'run_x',
      JSON.stringify({
        callId: 'call_email',
        agentName: 'send_email',
        reason: 'approval_timeout',
        message: 'expired; not sent',
      }),
    );
    expect(result.messages).toEqual([
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'call_email:resumed', name: 'send_email', arguments: '{}' }],
      },
      {
        role: 'tool',
        toolCallId: 'call_email:resumed',
        toolName: 'send_email',
        content: 'expired; not sent',
        status: 'timeout',
        isError: true,
        synthetic: true,
        errorCode: 'APPROVAL_TIMEOUT',
      },
    ]);
  });

  it("answers a committee's expired decision with the committee's COMMITTEE_DECISION_EXPIRED timeout", () => {
    const result = expiryNoticeResult(
      'run_y',
      JSON.stringify({
        callId: 'call_c',
        agentName: 'ask_committee_estimates',
        reason: 'approval_timeout',
        message: 'The agent expired',
      }),
    );
    expect(result.messages[1]).toMatchObject({
      role: 'tool',
      toolCallId: 'call_c:resumed',
      status: 'timeout',
      errorCode: 'COMMITTEE_DECISION_EXPIRED',
    });
    expect(result.messages[1]!.content).toContain('did not decide for the estimates committee in time');
    expect(result.response).toContain('did not decide');
  });
});
