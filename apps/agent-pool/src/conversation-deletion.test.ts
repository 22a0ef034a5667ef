// DeleteConversation (docs/conversations.md): a deleted conversation's waiting entries end
// cancelled and every entry of it is deleted; another conversation and another tenant keep theirs;
// a repeat deletes nothing; a malformed id is refused. Against a real pool server and NATS.
import { createLogger, type NatsConnection } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentPoolConfig } from './config.js';
import { startAgentPoolServer, type AgentPoolServer } from './server.js';
import { emailAgent, startFakeAgentRunner, type FakeAgentRunner } from './test-support/fake-agent-runner.js';
import {
  connectTestNats,
  poolClient,
  rejection,
  startRequest,
  testPoolConfig,
  unique,
  type PoolClient,
} from './test-support/pool-client.js';

const logger = createLogger({ service: 'pool-deletion-test', level: 'silent' });
const EMAIL = unique('send_email');

let nc: NatsConnection;
let config: AgentPoolConfig;
let server: AgentPoolServer;
let client: PoolClient;
let agents: FakeAgentRunner;
let db: pg.Pool;

beforeAll(async () => {
  nc = await connectTestNats(sharedInfra().natsUrl);
  agents = await startFakeAgentRunner(nc, [emailAgent(EMAIL)]);
  config = await testPoolConfig('agent_pool_deletion', { SWEEP_INTERVAL_MS: '60000' });
  server = await startAgentPoolServer(config, logger);
  client = await poolClient(server.port);
  db = new pg.Pool({ connectionString: config.DATABASE_URL, options: '-c search_path=agent_pool', max: 2 });
});

afterAll(async () => {
  await db?.end();
  client?.close();
  await server?.stop();
  await agents?.stop();
  await nc?.drain();
});

const wait = (tenantId: string, conversationId: string, callId: string) =>
  client.rpc.startAgent(startRequest(tenantId, EMAIL, callId, { subject: 'Report' }, { conversationId }));
const entries = async (tenantId: string, conversationId: string) =>
  Number(
    (
      await db.query<{ n: string }>('SELECT count(*) AS n FROM entries WHERE tenant_id = $1 AND conversation_id = $2', [
        tenantId,
        conversationId,
      ])
    ).rows[0]!.n,
  );

describe('DeleteConversation', () => {
  it("cancels and deletes the conversation's entries, and only them", async () => {
    const tenant = unique('t');
    const other = unique('t');
    const waiting = await wait(tenant, 'gone', 'call_1');
    expect(waiting.entry).toMatchObject({ status: 'waiting_for_input' });
    await wait(tenant, 'gone', 'call_2');
    await wait(tenant, 'kept', 'call_3');
    await wait(other, 'gone', 'call_4');

    const done = await client.rpc.deleteConversation({ tenantId: tenant, conversationId: 'gone' });
    expect(done).toEqual({ entriesCancelled: 2, entriesDeleted: 2 });
    expect(await entries(tenant, 'gone')).toBe(0);
    expect(await entries(tenant, 'kept')).toBe(1);
    expect(await entries(other, 'gone')).toBe(1);
    expect((await client.rpc.listPending({ tenantId: tenant, conversationId: '' })).entries).toHaveLength(1);
    expect(await rejection(client.rpc.getAgent({ tenantId: tenant, entryId: waiting.entry!.entryId }))).toMatchObject({
      kind: 'not_found',
    });

    expect(await client.rpc.deleteConversation({ tenantId: tenant, conversationId: 'gone' })).toEqual({
      entriesCancelled: 0,
      entriesDeleted: 0,
    });
  });

  it('refuses a malformed conversation id', async () => {
    expect(await rejection(client.rpc.deleteConversation({ tenantId: 'acme', conversationId: '' }))).toMatchObject({
      kind: 'invalid_argument',
      code: 'INVALID_CONVERSATION_ID',
    });
  });
});
