import { jetstream } from '@nats-io/jetstream';
import { createLogger, openServiceDatabase, type NatsConnection } from '@platform/service-kit';
import { createSuiteDatabase, sharedInfra } from '@platform/testing/vitest';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveEntryId } from './entry-store.js';
import { AGENT_POOL_EVENTS_STREAM, AgentExpiredEvent, agentPoolEventSubject } from '@platform/contracts';
import { AGENT_POOL_SCHEMA, startAgentPoolServer, type AgentPoolServer } from './server.js';
import { Sweeper } from './sweeper.js';
import { emailAgent, startFakeAgentRunner, type FakeAgentRunner } from './test-support/fake-agent-runner.js';
import {
  connectTestNats,
  poolClient,
  startRequest,
  testPoolConfig,
  unique,
  type PoolClient,
} from './test-support/pool-client.js';

const logger = createLogger({ service: 'agent-pool-test', level: 'silent' });
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));
const EMAIL = unique('expiring_email');

let nc: NatsConnection;
let runner: FakeAgentRunner;

beforeAll(async () => {
  nc = await connectTestNats(sharedInfra().natsUrl);
  runner = await startFakeAgentRunner(nc, [emailAgent(EMAIL)]);
});

afterAll(async () => {
  await runner?.stop();
  await nc?.drain();
});

/** Reads a tenant's expiry events from the stream: everything that arrives within `quietMs` after the last one. */
async function expiryEvents(tenantId: string, atLeast: number, quietMs = 1_000): Promise<AgentExpiredEvent[]> {
  const consumer = await jetstream(nc).consumers.get(AGENT_POOL_EVENTS_STREAM, {
    filter_subjects: agentPoolEventSubject(tenantId, 'expired'),
  });
  const events: AgentExpiredEvent[] = [];
  const deadline = Date.now() + 10_000;
  for (;;) {
    const batch = await consumer.fetch({ max_messages: 100, expires: events.length >= atLeast ? quietMs : 1_000 });
    let got = 0;
    for await (const msg of batch) {
      events.push(AgentExpiredEvent.parse(msg.json()));
      got++;
    }
    if (events.length >= atLeast && got === 0) return events;
    if (Date.now() > deadline) return events;
  }
}

describe('expiry sweeper in the service', () => {
  let server: AgentPoolServer;
  let client: PoolClient;

  beforeAll(async () => {
    const config = await testPoolConfig('agent_pool_expiry', { AGENT_INPUT_TTL_MS: '300', SWEEP_INTERVAL_MS: '100' });
    server = await startAgentPoolServer(config, logger);
    client = await poolClient(server.port);
  });

  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  it('expires an entry nobody answered and publishes one event for it', async () => {
    const tenant = unique('exp.tenant');
    const { entry } = await client.rpc.startAgent(
      startRequest(tenant, EMAIL, 'call_exp', { subject: 'x' }, { conversationId: 'conv-e', runId: 'run-e' }),
    );
    expect(entry?.status).toBe('waiting_for_input');

    const events = await expiryEvents(tenant, 1);
    expect(events).toEqual([
      {
        type: 'agent.expired',
        eventId: `${entry!.entryId}:expired`,
        entryId: entry!.entryId,
        tenantId: tenant,
        conversationId: 'conv-e',
        runId: 'run-e',
        callId: 'call_exp',
        agentName: EMAIL,
        reason: 'input_timeout',
        message: expect.stringMatching(/waited too long for the user's input/),
        expiredAt: expect.any(String),
      },
    ]);
    const expired = (await client.rpc.getAgent({ tenantId: tenant, entryId: entry!.entryId })).entry!;
    expect(expired).toMatchObject({ status: 'expired', errorCode: 'INPUT_TIMEOUT' });
    expect((await client.rpc.listPending({ tenantId: tenant, conversationId: '' })).entries).toEqual([]);
    await expect(
      client.rpc.continueAgent({
        tenantId: tenant,
        entryId: entry!.entryId,
        fieldsJson: '{"to":"a@example.com"}',
        message: '',
      }),
    ).rejects.toMatchObject({
      kind: 'failed_precondition',
      code: 'AGENT_NOT_WAITING',
    });
  });
});

describe('a call that finds its entry past its expiry', () => {
  let server: AgentPoolServer;
  let client: PoolClient;

  beforeAll(async () => {
    const config = await testPoolConfig('agent_pool_due', { AGENT_INPUT_TTL_MS: '200', SWEEP_INTERVAL_MS: '600000' });
    server = await startAgentPoolServer(config, logger);
    client = await poolClient(server.port);
  });

  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  it('expires it itself, runs nothing, and publishes the event', async () => {
    const tenant = unique('due');
    const { entry } = await client.rpc.startAgent(startRequest(tenant, EMAIL, 'call_due', { subject: 'x' }));
    expect((await client.rpc.listPending({ tenantId: tenant, conversationId: '' })).entries).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    // Past its expiry it is no longer listed, even before any sweep.
    expect((await client.rpc.listPending({ tenantId: tenant, conversationId: '' })).entries).toEqual([]);
    const calls = runner.calls.length;
    await expect(
      client.rpc.continueAgent({
        tenantId: tenant,
        entryId: entry!.entryId,
        fieldsJson: '{"to":"a@example.com"}',
        message: '',
      }),
    ).rejects.toMatchObject({
      kind: 'failed_precondition',
      code: 'AGENT_NOT_WAITING',
      details: { status: 'expired' },
    });
    expect(runner.calls.length).toBe(calls);
    expect((await expiryEvents(tenant, 1)).map((e) => [e.entryId, e.reason])).toEqual([
      [entry!.entryId, 'input_timeout'],
    ]);
  });
});

describe('sweepers side by side', () => {
  let url: string;
  let db: pg.Pool;
  const sweepers: Sweeper[] = [];
  const pools: pg.Pool[] = [];

  function sweeper(batchSize: number): Sweeper {
    const s = new Sweeper({
      db: pools[sweepers.length % pools.length]!,
      nc,
      logger,
      streamName: AGENT_POOL_EVENTS_STREAM,
      streamMaxAgeHours: 1,
      intervalMs: 60_000,
      batchSize,
      retentionDays: 0,
    });
    sweepers.push(s);
    return s;
  }

  /** Live entries already past their expiry, as if the pool had been down meanwhile. */
  async function dueEntries(
    tenantId: string,
    count: number,
    status: 'waiting_for_input' | 'waiting_for_approval' = 'waiting_for_input',
  ): Promise<string[]> {
    const ids = Array.from({ length: count }, (_, i) =>
      deriveEntryId({ tenantId, conversationId: 'conv', runId: undefined, callId: `call_${i}` }),
    );
    const approval =
      status === 'waiting_for_approval'
        ? JSON.stringify({
            agentName: EMAIL,
            actionSummary: 'Send email to a@example.com',
            details: {},
            options: ['approve'],
            timeoutMinutes: 1,
            allowModification: false,
          })
        : null;
    await db.query(
      `INSERT INTO entries (entry_id, tenant_id, conversation_id, call_id, agent_name, status, schema_version, arguments, source_kind, approval, expires_at)
       SELECT id, $2, 'conv', 'call_' || (ord - 1), $3, $4, '1', '{}', 'user', $5::jsonb, now() - interval '1 second'
       FROM unnest($1::text[]) WITH ORDINALITY AS t(id, ord)`,
      [ids, tenantId, EMAIL, status, approval],
    );
    return ids;
  }

  beforeAll(async () => {
    url = await createSuiteDatabase('agent_pool_sweepers');
    db = await openServiceDatabase({
      url,
      schema: AGENT_POOL_SCHEMA,
      migrationsDir,
      applicationName: 'agent-pool-test',
      maxConnections: 4,
      logger,
    });
    for (let i = 0; i < 3; i++)
      pools.push(
        await openServiceDatabase({
          url,
          schema: AGENT_POOL_SCHEMA,
          migrationsDir,
          applicationName: 'agent-pool-test',
          maxConnections: 4,
          logger,
        }),
      );
    await sweeper(1).ensureStream();
  });

  afterAll(async () => {
    await Promise.all(sweepers.map((s) => s.stop()));
    await Promise.all([db, ...pools].map((p) => p?.end()));
  });

  it('never expire an entry twice, and publish exactly one event per entry', async () => {
    const tenant = unique('race');
    const ids = await dueEntries(tenant, 60);
    const a = sweeper(7);
    const b = sweeper(7);
    const c = sweeper(7);
    const rounds = await Promise.all(
      Array.from({ length: 5 }, () => [a.sweepOnce(), b.sweepOnce(), c.sweepOnce()]).flat(),
    );
    const expired = rounds.flatMap((r) => r.expired.map((e) => e.entry_id));
    expect(expired.sort()).toEqual([...ids].sort());

    const events = await expiryEvents(tenant, ids.length);
    expect(events.map((e) => e.entryId).sort()).toEqual([...ids].sort());
    const { rows } = await db.query<{ status: string; event_pending: boolean; n: string }>(
      'SELECT status, event_pending, count(*) AS n FROM entries WHERE tenant_id = $1 GROUP BY 1, 2',
      [tenant],
    );
    expect(rows).toEqual([{ status: 'expired', event_pending: false, n: '60' }]);
  });

  it('says which wait ran out', async () => {
    const tenant = unique('approval');
    const [id] = await dueEntries(tenant, 1, 'waiting_for_approval');
    await sweeper(10).sweepOnce();
    const [event] = await expiryEvents(tenant, 1);
    expect(event).toMatchObject({
      entryId: id,
      reason: 'approval_timeout',
      message:
        'The approval request "Send email to a@example.com" was not answered in time and expired; the action was not taken.',
    });
  });

  it('publishes an event a crash left pending, and drops a republished one as a duplicate', async () => {
    const tenant = unique('outbox');
    const [id] = await dueEntries(tenant, 1);
    // Expired, but the process died before publishing: the outbox flag is still set.
    await db.query(
      `UPDATE entries SET status = 'expired', error_code = 'INPUT_TIMEOUT', error_message = 'expired', event_pending = true WHERE entry_id = $1`,
      [id],
    );
    const s = sweeper(10);
    expect(await s.publishPending()).toBe(1);
    // Published, but the process died before clearing the flag: the repeat is a JetStream duplicate.
    await db.query('UPDATE entries SET event_pending = true WHERE entry_id = $1', [id]);
    await Promise.all([s.publishPending(), sweeper(10).publishPending()]);
    expect((await expiryEvents(tenant, 1)).map((e) => e.entryId)).toEqual([id]);
    expect((await db.query('SELECT 1 FROM entries WHERE event_pending')).rows).toEqual([]);
  });

  it('purges finished entries past retention and keeps the rest', async () => {
    const tenant = unique('purge');
    const [old, recent, live] = await dueEntries(tenant, 3);
    await db.query(
      `UPDATE entries SET status = 'completed', expires_at = NULL, updated_at = now() - interval '31 days' WHERE entry_id = $1`,
      [old],
    );
    await db.query(`UPDATE entries SET status = 'completed', expires_at = NULL WHERE entry_id = $1`, [recent]);
    await db.query(`UPDATE entries SET expires_at = now() + interval '1 hour' WHERE entry_id = $1`, [live]);
    const s = new Sweeper({
      db,
      nc,
      logger,
      streamName: AGENT_POOL_EVENTS_STREAM,
      streamMaxAgeHours: 1,
      intervalMs: 60_000,
      batchSize: 10,
      retentionDays: 30,
    });
    expect((await s.sweepOnce()).purged).toBe(1);
    const { rows } = await db.query<{ entry_id: string }>(
      'SELECT entry_id FROM entries WHERE tenant_id = $1 ORDER BY entry_id',
      [tenant],
    );
    expect(rows.map((r) => r.entry_id)).toEqual([recent, live].sort());
  });
});
