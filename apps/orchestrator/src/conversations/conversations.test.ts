// Conversations as resources against a real Postgres: the statements that record and finish runs
// keep the conversations table (ownership gate included), and the ConversationService, served
// over a real gRPC server, lists, reads and writes them (docs/conversations.md).
import { conversationsV1 } from '@platform/proto';
import {
  createGrpcClient,
  createLogger,
  GrpcServer,
  PlaintextTransport,
  type GrpcClientHandle,
} from '@platform/service-kit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrchestratorConfig } from '../config.js';
import { ConversationClosedError, RunRecords, type NewRun } from '../journal/run-records.js';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { answeredResult, messageRun } from '../test-support/run-fixtures.js';
import { conversationServiceImplementation } from './conversation-service.js';
import { ConversationStore } from './conversation-store.js';
import { compileRunWebhookSettings } from '../webhook-options.js';
import { RunWebhooks } from '../webhooks/run-webhooks.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let pool: pg.Pool;
let records: RunRecords;
let server: GrpcServer;
let client: GrpcClientHandle<conversationsV1.ConversationServiceClient>;
let webhooks: RunWebhooks;
let counter = 0;
let token = 0;

beforeAll(async () => {
  pool = await openJournalDatabase('conversations', logger, 5);
  records = new RunRecords(pool);
  // Every host resolves to a public address but inside.example, which resolves to a private one.
  const config = OrchestratorConfig.parse({ OPENAI_API_KEY: 'k', LLM_MODEL: 'm' });
  webhooks = new RunWebhooks(pool, compileRunWebhookSettings(config), logger, (host) =>
    Promise.resolve([{ address: host === 'inside.example' ? '10.0.0.7' : '93.184.216.34', family: 4 }]),
  );
  const transport = new PlaintextTransport();
  server = new GrpcServer({ host: '127.0.0.1', port: 0, transport, logger });
  server.addService(
    'orchestrator.v1.ConversationService',
    conversationsV1.ConversationServiceService,
    conversationServiceImplementation({ store: new ConversationStore(pool), logger, webhooks }),
    {
      listConversations: ['api'],
      getConversation: ['api'],
      updateConversation: ['api'],
      checkConversationAccess: ['api'],
    },
  );
  const port = await server.start();
  client = createGrpcClient(
    conversationsV1.ConversationServiceClient,
    conversationsV1.ConversationServiceService,
    `127.0.0.1:${port}`,
    { defaultDeadlineMs: 10_000, transport, server: 'orchestrator' },
  );
});
afterAll(async () => {
  client?.close();
  await server?.stop(1_000);
  await webhooks?.stop();
  await pool?.end();
});

const rpc = () => client.rpc;
const caller = (tenantId: string, subject: string, role = 'member') => ({ tenantId, subject, role });

/** A message run from `sender` (role member unless `seesAll`), recorded the way HandleMessage records it. */
function message(
  tenantId: string,
  conversationId: string,
  sender: string,
  seesAll = false,
  agentName = 'helper',
): NewRun {
  return {
    ...messageRun(`run_conv_${++counter}`, conversationId, tenantId),
    subject: sender,
    agent: { id: `builtin:${agentName}`, version: 0 },
    conversation: { sender, agentName, seesAll },
  };
}

/** Records and finishes a message run (claimed at once: nothing else is live in these conversations). */
async function turn(run: NewRun, status: 'completed' | 'waiting' = 'completed') {
  const { claimed } = await records.admit(run, 'o1', 10_000, ++token);
  expect(claimed?.runId).toBe(run.runId);
  await records.finish(claimed!, status, answeredResult(run.runId));
}

async function errorOf(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call;
  } catch (error) {
    // The code and the message, as one text to match.
    const { code, message } = error as { code: string; message: string };
    return { code, message: `${code}: ${message}` };
  }
  throw new Error('the call succeeded');
}

describe('the statements that record runs keep the conversation', () => {
  it('creates it owned by its first sender and counts its runs and activity', async () => {
    const run = message('t-own', 'c-1', 'alice');
    await turn(run);
    await turn(message('t-own', 'c-1', 'alice', false, 'support'));
    const { conversation } = await rpc().getConversation({ caller: caller('t-own', 'alice'), conversationId: 'c-1' });
    expect(conversation).toMatchObject({
      conversationId: 'c-1',
      owner: 'alice',
      shared: false,
      runCount: 2,
      agentName: 'support',
      agentId: 'builtin:support',
      waitingForUser: false,
      title: '',
      labels: [],
      metadataJson: '{}',
    });
    expect(conversation!.lastActivityAt!.getTime()).toBeGreaterThanOrEqual(conversation!.createdAt!.getTime());
  });

  it("refuses another member's message in both recording statements and records no run; a developer's goes in", async () => {
    await turn(message('t-gate', 'c-gate', 'alice'));
    const intruder = message('t-gate', 'c-gate', 'bob');
    await expect(records.admit(intruder, 'o1', 10_000, ++token)).rejects.toBeInstanceOf(ConversationClosedError);
    await expect(records.create(message('t-gate', 'c-gate', 'bob'))).rejects.toBeInstanceOf(ConversationClosedError);
    expect(await records.get('t-gate', intruder.runId)).toBeUndefined();
    await turn(message('t-gate', 'c-gate', 'dev-1', true));
    const { conversation } = await rpc().getConversation({
      caller: caller('t-gate', 'alice'),
      conversationId: 'c-gate',
    });
    expect(conversation).toMatchObject({ owner: 'alice', runCount: 2 });
  });

  it('lets other members send once the owner shares it', async () => {
    await turn(message('t-share', 'c-s', 'alice'));
    await rpc().updateConversation({
      caller: caller('t-share', 'alice'),
      conversationId: 'c-s',
      setLabels: false,
      labels: [],
      shared: true,
    });
    await turn(message('t-share', 'c-s', 'bob'));
    const { conversations } = await list('t-share', { subject: 'bob', role: 'member' });
    expect(conversations.map((c) => c.conversationId)).toEqual(['c-s']);
  });

  it('says whether the conversation waits for the user after each run, and a new message clears it', async () => {
    await turn(message('t-wait', 'c-w', 'alice'), 'waiting');
    const waiting = await rpc().getConversation({ caller: caller('t-wait', 'alice'), conversationId: 'c-w' });
    expect(waiting.conversation?.waitingForUser).toBe(true);
    const answer = message('t-wait', 'c-w', 'alice');
    await records.admit(answer, 'o1', 10_000, ++token);
    const answering = await rpc().getConversation({ caller: caller('t-wait', 'alice'), conversationId: 'c-w' });
    expect(answering.conversation?.waitingForUser).toBe(false);
  });

  it("lets every member reach a conversation no user started (a trigger task's), and says who may read a history", async () => {
    await turn(message('t-trig', 'task-1', '', true));
    await turn(message('t-trig', 'c-alice', 'alice'));
    const bob = caller('t-trig', 'bob');
    await turn(message('t-trig', 'task-1', 'bob'));
    expect((await rpc().getConversation({ caller: bob, conversationId: 'task-1' })).conversation?.owner).toBe('');
    const allowed = async (who: ReturnType<typeof caller>, conversationId: string) =>
      (await rpc().checkConversationAccess({ caller: who, conversationId })).allowed;
    expect(await allowed(bob, 'task-1')).toBe(true);
    expect(await allowed(bob, 'c-none-yet')).toBe(true);
    expect(await allowed(bob, 'c-alice')).toBe(false);
    expect(await allowed(caller('t-trig', 'alice'), 'c-alice')).toBe(true);
    expect(await allowed(caller('t-trig', 'x', 'admin'), 'c-alice')).toBe(true);
    expect(await allowed(caller('t-other', 'bob'), 'c-alice')).toBe(true);
  });

  it('keeps child runs and notices (no conversation entry) out of the table', async () => {
    const child = messageRun(`run_conv_${++counter}`, 'delegation:x', 't-child');
    expect(await records.create(child)).toBe(true);
    const { conversations } = await list('t-child', { subject: '', role: 'admin' });
    expect(conversations).toEqual([]);
  });
});

/** Lists with `extra` filters as `who`. */
const list = (
  tenantId: string,
  who: { subject: string; role: string },
  extra: Partial<conversationsV1.ListConversationsRequest> = {},
) =>
  rpc().listConversations({
    caller: { tenantId, ...who },
    pageSize: 0,
    pageToken: '',
    agent: '',
    owner: '',
    label: '',
    metadata: [],
    search: '',
    ...extra,
  });
const ids = (page: conversationsV1.ListConversationsResponse) => page.conversations.map((c) => c.conversationId);
const update = (
  tenantId: string,
  who: { subject: string; role: string },
  conversationId: string,
  fields: Partial<conversationsV1.UpdateConversationRequest>,
) =>
  rpc().updateConversation({ caller: { tenantId, ...who }, conversationId, setLabels: false, labels: [], ...fields });

describe('listing and searching', () => {
  const tenant = 't-list';
  const alice = { subject: 'alice', role: 'member' };
  const bob = { subject: 'bob', role: 'member' };
  const admin = { subject: 'root', role: 'admin' };

  beforeAll(async () => {
    // Oldest first: c-a1 .. c-a5 by alice (c-a3 under "support", c-a5 waiting), c-b1 by bob.
    for (const [id, sender, agent, status] of [
      ['c-a1', 'alice', 'helper', 'completed'],
      ['c-a2', 'alice', 'helper', 'completed'],
      ['c-a3', 'alice', 'support', 'completed'],
      ['c-a4', 'alice', 'helper', 'completed'],
      ['c-a5', 'alice', 'helper', 'waiting'],
      ['c-b1', 'bob', 'helper', 'completed'],
    ] as const)
      await turn(message(tenant, id, sender, false, agent), status);
    await update(tenant, alice, 'c-a1', {
      title: 'Invoice 100% refund_now',
      setLabels: true,
      labels: ['billing', 'vip'],
    });
    await update(tenant, alice, 'c-a2', { title: 'Refund of an invoice', metadataJson: '{"crm":"A-1","n":12.5}' });
    await update(tenant, alice, 'c-a4', { title: 'Weather in Berlin', setLabels: true, labels: ['billing'] });
  });

  it('answers most recent activity first, only what the member owns, all for an admin', async () => {
    expect(ids(await list(tenant, alice))).toEqual(['c-a5', 'c-a4', 'c-a3', 'c-a2', 'c-a1']);
    expect(ids(await list(tenant, bob))).toEqual(['c-b1']);
    expect(ids(await list(tenant, admin))).toEqual(['c-b1', 'c-a5', 'c-a4', 'c-a3', 'c-a2', 'c-a1']);
    expect(ids(await list(tenant, { subject: 'dev', role: 'developer' }))).toHaveLength(6);
  });

  it('moves a conversation to the front when it has a new run', async () => {
    await turn(message(tenant, 'c-a3', 'alice', false, 'support'));
    expect(ids(await list(tenant, alice))[0]).toBe('c-a3');
  });

  it('pages with a cursor, each conversation once, and refuses a token of another listing or tenant', async () => {
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await list(tenant, admin, { pageSize: 2, pageToken });
      seen.push(...ids(page));
      pageToken = page.nextPageToken;
      pages += 1;
    } while (pageToken);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids(await list(tenant, admin)));
    const first = await list(tenant, admin, { pageSize: 2 });
    expect(
      (await errorOf(list(tenant, admin, { pageSize: 2, pageToken: first.nextPageToken, label: 'vip' }))).message,
    ).toContain('INVALID_PAGE_TOKEN');
    expect((await errorOf(list('t-other', admin, { pageToken: first.nextPageToken }))).message).toContain(
      'another tenant',
    );
    expect((await errorOf(list(tenant, admin, { pageToken: `${first.nextPageToken}x` }))).message).toContain(
      'INVALID_PAGE_TOKEN',
    );
  });

  it('filters by agent, owner, label, metadata and waiting', async () => {
    expect(ids(await list(tenant, admin, { agent: 'support' }))).toEqual(['c-a3']);
    expect(ids(await list(tenant, admin, { agent: 'builtin:support' }))).toEqual(['c-a3']);
    expect(ids(await list(tenant, admin, { owner: 'bob' }))).toEqual(['c-b1']);
    expect(ids(await list(tenant, bob, { owner: 'alice' }))).toEqual([]);
    expect(ids(await list(tenant, alice, { label: 'billing' }))).toEqual(['c-a4', 'c-a1']);
    expect(ids(await list(tenant, alice, { metadata: ['crm=A-1'] }))).toEqual(['c-a2']);
    expect(ids(await list(tenant, alice, { metadata: ['crm=A-2'] }))).toEqual([]);
    expect(ids(await list(tenant, alice, { waitingForUser: true }))).toEqual(['c-a5']);
    expect(ids(await list(tenant, alice, { waitingForUser: false }))).not.toContain('c-a5');
    expect((await errorOf(list(tenant, alice, { metadata: ['no-equals'] }))).message).toContain(
      'INVALID_CONVERSATION_FILTER',
    );
    expect((await errorOf(list(tenant, alice, { label: 'two words' }))).message).toContain(
      'INVALID_CONVERSATION_FILTER',
    );
  });

  it('searches titles without regard to case, matching % and _ literally', async () => {
    expect(ids(await list(tenant, alice, { search: 'invoice' }))).toEqual(['c-a2', 'c-a1']);
    expect(ids(await list(tenant, alice, { search: 'BERLIN' }))).toEqual(['c-a4']);
    expect(ids(await list(tenant, alice, { search: '100%' }))).toEqual(['c-a1']);
    // "Refund of" would match if _ were a wildcard.
    expect(ids(await list(tenant, alice, { search: 'd_of' }))).toEqual([]);
    expect(ids(await list(tenant, alice, { search: 'd_now' }))).toEqual(['c-a1']);
    expect(ids(await list(tenant, bob, { search: 'invoice' }))).toEqual([]);
  });

  it('finds titles through a trigram index (migrations/0024)', async () => {
    const { rows } = await pool.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE tablename = 'conversations' AND indexname = 'conversations_title_trigram'`,
    );
    expect(rows[0]?.indexdef).toMatch(/USING gin \(title [a-z_]+\.gin_trgm_ops\)/);
    // A tenant with many conversations: the listing's search reads the index, not every row.
    await pool.query(
      `INSERT INTO conversations (tenant_id, conversation_id, title, last_activity_at)
       SELECT 't-many', 'c-' || i, 'Conversation ' || md5(i::text), now() - i * interval '1 second'
       FROM generate_series(1, 5000) i`,
    );
    // VACUUM merges the GIN index's pending entries, as autovacuum does in a running database.
    await pool.query('VACUUM ANALYZE conversations');
    const plan = await pool.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT conversation_id FROM conversations
       WHERE tenant_id = 't-many' AND title ILIKE '%needle in it%'
       ORDER BY last_activity_at DESC, conversation_id DESC LIMIT 51`,
    );
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('conversations_title_trigram');
  });

  it('reads metadata back as written', async () => {
    const { conversation } = await rpc().getConversation({
      caller: { tenantId: tenant, ...alice },
      conversationId: 'c-a2',
    });
    expect(JSON.parse(conversation!.metadataJson)).toEqual({ crm: 'A-1', n: 12.5 });
  });
});

describe('reading and writing one conversation', () => {
  const tenant = 't-one';
  const alice = { subject: 'alice', role: 'member' };
  const bob = { subject: 'bob', role: 'member' };

  beforeAll(async () => {
    await turn(message(tenant, 'c-1', 'alice'));
  });

  it("answers NOT_FOUND for another tenant's conversation, another member's, and none at all", async () => {
    for (const [tenantId, who, id] of [
      ['t-other', alice, 'c-1'],
      [tenant, bob, 'c-1'],
      [tenant, alice, 'c-none'],
    ] as const) {
      const got = await errorOf(rpc().getConversation({ caller: { tenantId, ...who }, conversationId: id }));
      expect(got.message).toContain('CONVERSATION_NOT_FOUND');
      const wrote = await errorOf(update(tenantId, who, id, { title: 'mine now' }));
      expect(wrote.message).toContain('CONVERSATION_NOT_FOUND');
    }
    const { conversation } = await rpc().getConversation({
      caller: { tenantId: tenant, ...alice },
      conversationId: 'c-1',
    });
    expect(conversation?.title).toBe('');
  });

  it('writes only the fields given; an empty title removes it', async () => {
    await update(tenant, alice, 'c-1', { title: 'First', setLabels: true, labels: ['a'], metadataJson: '{"k":"v"}' });
    const { conversation } = await update(tenant, alice, 'c-1', { title: '' });
    expect(conversation).toMatchObject({ title: '', labels: ['a'] });
    expect(JSON.parse(conversation!.metadataJson)).toEqual({ k: 'v' });
    expect(conversation?.updatedAt).toBeInstanceOf(Date);
  });

  it('refuses what is past its limits or not storable, and stores nothing of it', async () => {
    const cases: Array<[Partial<conversationsV1.UpdateConversationRequest>, string]> = [
      [{ title: 'x'.repeat(201) }, 'INVALID_CONVERSATION_TITLE'],
      [{ title: 'bad\u0000nul' }, 'INVALID_CONVERSATION_TITLE'],
      [{ setLabels: true, labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, 'INVALID_CONVERSATION_LABELS'],
      [{ setLabels: true, labels: ['a', 'a'] }, 'INVALID_CONVERSATION_LABELS'],
      [{ setLabels: true, labels: ['with space'] }, 'INVALID_CONVERSATION_LABELS'],
      [{ setLabels: true, labels: ['x'.repeat(65)] }, 'INVALID_CONVERSATION_LABELS'],
      [{ metadataJson: '[1,2]' }, 'INVALID_CONVERSATION_METADATA'],
      [{ metadataJson: '{"a":' }, 'INVALID_CONVERSATION_METADATA'],
      [{ metadataJson: JSON.stringify({ big: 'x'.repeat(8200) }) }, 'INVALID_CONVERSATION_METADATA'],
      [{ metadataJson: '{"a":"\\u0000"}' }, 'INVALID_CONVERSATION_METADATA'],
      [{ metadataJson: '{"n":12345678901234567890}' }, 'INVALID_CONVERSATION_METADATA'],
      [{ metadataJson: '{"n":1e400}' }, 'INVALID_CONVERSATION_METADATA'],
      [{ metadataJson: '{"n":{"f":0.1000000000000000000001}}' }, 'metadata.n.f is the number'],
      [{ metadataJson: '{"n":[9007199254740993]}' }, 'metadata.n[0] is the number'],
    ];
    for (const [fields, code] of cases) {
      const got = await errorOf(update(tenant, alice, 'c-1', { ...fields, shared: undefined }));
      expect(got.message, JSON.stringify(fields).slice(0, 60)).toContain(code);
    }
    // At the limits exactly, it is kept.
    const title = '\u{1F600}'.repeat(200);
    const labels = Array.from({ length: 20 }, (_, i) => `l${i}`);
    const metadataJson = JSON.stringify({ big: 'x'.repeat(8192 - 10) });
    const { conversation } = await update(tenant, alice, 'c-1', { title, setLabels: true, labels, metadataJson });
    expect(conversation).toMatchObject({ title, labels });
    expect(JSON.parse(conversation!.metadataJson)).toEqual(JSON.parse(metadataJson));
  });

  it('lets only the owner or an admin share; a developer reads and writes but may not share', async () => {
    const developer = { subject: 'dev', role: 'developer' };
    await update(tenant, developer, 'c-1', { title: 'Renamed by a developer' });
    expect((await errorOf(update(tenant, developer, 'c-1', { shared: true }))).message).toContain(
      'CONVERSATION_SHARE_FORBIDDEN',
    );
    await update(tenant, { subject: 'root', role: 'admin' }, 'c-1', { shared: true });
    // Shared: bob reads and renames it, but may not unshare it.
    const { conversation } = await update(tenant, bob, 'c-1', { title: 'Bob was here' });
    expect(conversation).toMatchObject({ shared: true, owner: 'alice' });
    expect((await errorOf(update(tenant, bob, 'c-1', { shared: false }))).message).toContain(
      'CONVERSATION_SHARE_FORBIDDEN',
    );
    await update(tenant, alice, 'c-1', { shared: false });
    expect(
      (await errorOf(rpc().getConversation({ caller: { tenantId: tenant, ...bob }, conversationId: 'c-1' }))).message,
    ).toContain('CONVERSATION_NOT_FOUND');
  });

  it('gives a viewer and an unknown role only their own, and refuses a caller without a tenant', async () => {
    expect((await list(tenant, { subject: 'bob', role: 'viewer' })).conversations).toEqual([]);
    expect((await list(tenant, { subject: 'bob', role: 'superuser' })).conversations).toEqual([]);
    expect((await list(tenant, { subject: 'alice', role: '' })).conversations.map((c) => c.conversationId)).toEqual([
      'c-1',
    ]);
    expect((await errorOf(rpc().getConversation({ conversationId: 'c-1' } as never))).message).toContain(
      'INVALID_TENANT_ID',
    );
  });
});

describe("a conversation's run webhook", () => {
  const tenant = 't-hook';
  const alice = { subject: 'alice', role: 'member' };
  const target = async (runId: string) =>
    (await pool.query<{ url: string }>('SELECT url FROM run_webhook_targets WHERE run_id = $1', [runId])).rows[0]?.url;

  beforeAll(async () => {
    await turn(message(tenant, 'c-hook', 'alice'));
  });

  it('is set, shown redacted, and chosen after the message and before the tenant default; cleared with ""', async () => {
    const url = 'https://hooks.example.com/runs?token=s3cret';
    const { conversation } = await update(tenant, alice, 'c-hook', { webhookUrl: url });
    expect(conversation!.webhookUrl).toBe('https://hooks.example.com/runs?token=[redacted]');
    await webhooks.store.update(tenant, { url: 'https://default.example.com/all', rotateSecret: false });
    await webhooks.recordTarget(tenant, 'c-hook', 'run_hook_1', undefined);
    expect(await target('run_hook_1')).toBe(url);
    await webhooks.recordTarget(tenant, 'c-hook', 'run_hook_2', 'https://message.example.com/x');
    expect(await target('run_hook_2')).toBe('https://message.example.com/x');
    // Another conversation of the tenant, or another tenant's conversation of the same id, does not take it.
    await webhooks.recordTarget(tenant, 'c-other', 'run_hook_3', undefined);
    expect(await target('run_hook_3')).toBe('https://default.example.com/all');
    await webhooks.recordTarget('t-hook-2', 'c-hook', 'run_hook_4', undefined);
    expect(await target('run_hook_4')).toBeUndefined();
    const cleared = await update(tenant, alice, 'c-hook', { webhookUrl: '' });
    expect(cleared.conversation!.webhookUrl).toBe('');
    await webhooks.recordTarget(tenant, 'c-hook', 'run_hook_5', undefined);
    expect(await target('run_hook_5')).toBe('https://default.example.com/all');
  });

  it('refuses a URL that reaches inside or is not https, and keeps the one it had', async () => {
    await update(tenant, alice, 'c-hook', { webhookUrl: 'https://hooks.example.com/kept' });
    for (const [url, code] of [
      ['https://inside.example/x', 'EGRESS_REFUSED'],
      ['https://10.1.2.3/x', 'EGRESS_REFUSED'],
      ['https://user:pw@hooks.example.com/x', 'EGRESS_REFUSED'],
      ['http://hooks.example.com/x', 'INVALID_WEBHOOK_URL'],
      [`https://hooks.example.com/${'x'.repeat(2048)}`, 'INVALID_WEBHOOK_URL'],
    ] as const)
      expect((await errorOf(update(tenant, alice, 'c-hook', { webhookUrl: url }))).message).toContain(code);
    const { conversation } = await rpc().getConversation({
      caller: { tenantId: tenant, ...alice },
      conversationId: 'c-hook',
    });
    expect(conversation!.webhookUrl).toBe('https://hooks.example.com/kept');
  });
});
