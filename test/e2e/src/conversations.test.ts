// Conversations as resources through the real api and orchestrator (docs/conversations.md): a
// conversation belongs to the end user who started it; another member cannot read, rename or send
// to it (404, as if it did not exist) until it is shared; an admin sees every one; the listing
// follows activity and filters and searches what the caller may see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, tokenFor, type Caller, type SuitePlatform } from './support.js';

const TENANT = 'conversations-e2e';
const ALICE: Caller = { tenant: TENANT, subject: 'alice' };
const BOB: Caller = { tenant: TENANT, subject: 'bob' };
const ADMIN: Caller = { tenant: TENANT, subject: 'root', roles: ['admin'] };
const OTHER_TENANT: Caller = { tenant: 'conversations-e2e-other', subject: 'alice', roles: ['admin'] };

interface ConversationJson {
  conversationId: string;
  title: string | null;
  labels: string[];
  owner: string | null;
  shared: boolean;
  runCount: number;
  agentName: string | null;
}
interface Page {
  conversations: ConversationJson[];
  nextPageToken: string | null;
}

let platform: SuitePlatform;

const send = (who: Caller, conversationId: string, content = '[scenario:plain] hello') =>
  api<{ status: string; error?: { code: string } }>(
    platform,
    'POST',
    `/v1/conversations/${conversationId}/messages`,
    who,
    {
      content,
    },
  );
const list = (who: Caller, query = '') => api<Page>(platform, 'GET', `/v1/conversations${query}`, who);
const ids = (page: Page) => page.conversations.map((c) => c.conversationId);

beforeAll(async () => {
  platform = await bootPlatform('conversations', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
  for (const id of ['alice-1', 'alice-2']) expect((await send(ALICE, id)).status).toBe(200);
  expect((await send(BOB, 'bob-1')).status).toBe(200);
}, 240_000);
afterAll(async () => {
  await platform?.stop();
});

describe('who can see a conversation', () => {
  it("answers another member's conversation as one that does not exist, for every operation", async () => {
    const expected = { status: 404, body: { error: { code: 'CONVERSATION_NOT_FOUND' } } };
    expect(await send(BOB, 'alice-1')).toMatchObject(expected);
    expect(await api(platform, 'GET', '/v1/conversations/alice-1', BOB)).toMatchObject(expected);
    expect(await api(platform, 'GET', '/v1/conversations/alice-1/messages', BOB)).toMatchObject(expected);
    expect(await api(platform, 'PATCH', '/v1/conversations/alice-1', BOB, { title: 'mine' })).toMatchObject(expected);
    expect(await api(platform, 'GET', '/v1/conversations/nobody-has-this', BOB)).toMatchObject(expected);
    // The facade goes through the same gate.
    const facade = await fetch(`${platform.apiUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await tokenFor(BOB)}`,
        'content-type': 'application/json',
        'x-conversation-id': 'alice-1',
      },
      body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: '[scenario:plain] hi' }] }),
    });
    expect(facade.status).toBe(404);
    // Nothing of Bob's reached Alice's history.
    const history = await api<{ messages: unknown[] }>(platform, 'GET', '/v1/conversations/alice-1/messages', ALICE);
    expect(history.body.messages).toHaveLength(2);
    expect((await api<ConversationJson>(platform, 'GET', '/v1/conversations/alice-1', ALICE)).body.runCount).toBe(1);
  });

  it("lists a member's own conversations, an admin's all of the tenant's, and none of another tenant's", async () => {
    expect(ids((await list(ALICE)).body)).toEqual(['alice-2', 'alice-1']);
    expect(ids((await list(BOB)).body)).toEqual(['bob-1']);
    expect(ids((await list(ADMIN)).body)).toEqual(['bob-1', 'alice-2', 'alice-1']);
    expect(ids((await list(OTHER_TENANT)).body)).toEqual([]);
    expect(await api(platform, 'GET', '/v1/conversations/alice-1', OTHER_TENANT)).toMatchObject({ status: 404 });
  });

  it('opens a shared conversation to the other members, who may send to it', async () => {
    expect(await api(platform, 'PATCH', '/v1/conversations/alice-2', BOB, { shared: true })).toMatchObject({
      status: 404,
    });
    const shared = await api<ConversationJson>(platform, 'PATCH', '/v1/conversations/alice-2', ALICE, { shared: true });
    expect(shared.body).toMatchObject({ shared: true, owner: 'alice' });
    expect((await send(BOB, 'alice-2')).status).toBe(200);
    expect(await api(platform, 'PATCH', '/v1/conversations/alice-2', BOB, { shared: false })).toMatchObject({
      status: 403,
      body: { error: { code: 'CONVERSATION_SHARE_FORBIDDEN' } },
    });
    expect(ids((await list(BOB)).body)).toEqual(['alice-2', 'bob-1']);
  });
});

describe('titles, labels and search', () => {
  it('renames and labels, then finds by search and label; refuses what it cannot keep', async () => {
    const renamed = await api<ConversationJson>(platform, 'PATCH', '/v1/conversations/alice-1', ALICE, {
      title: 'Refund for order 1042',
      labels: ['billing'],
      metadata: { crm: 'T-88' },
    });
    expect(renamed.body).toMatchObject({ title: 'Refund for order 1042', labels: ['billing'] });
    expect(ids((await list(ALICE, '?search=REFUND')).body)).toEqual(['alice-1']);
    expect(ids((await list(ALICE, '?label=billing&metadata=crm%3DT-88')).body)).toEqual(['alice-1']);
    expect(ids((await list(ADMIN, '?user=bob')).body)).toEqual(['bob-1']);
    expect(ids((await list(ALICE, '?waitingForUser=true')).body)).toEqual([]);
    const page = await list(ADMIN, '?pageSize=2');
    expect(page.body.conversations).toHaveLength(2);
    const next = await list(ADMIN, `?pageSize=2&pageToken=${encodeURIComponent(page.body.nextPageToken!)}`);
    expect([...ids(page.body), ...ids(next.body)]).toEqual(ids((await list(ADMIN)).body));
    expect(await api(platform, 'PATCH', '/v1/conversations/alice-1', ALICE, { title: 'x'.repeat(201) })).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_CONVERSATION_TITLE' } },
    });
    expect(await api(platform, 'PATCH', '/v1/conversations/alice-1', ALICE, { labels: ['has space'] })).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_CONVERSATION_LABELS' } },
    });
    expect(
      await api(platform, 'PATCH', '/v1/conversations/alice-1', ALICE, { metadata: { big: 'x'.repeat(9000) } }),
    ).toMatchObject({ status: 400, body: { error: { code: 'INVALID_CONVERSATION_METADATA' } } });
    expect(await list(ALICE, '?metadata=nokey')).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_CONVERSATION_FILTER' } },
    });
    expect((await api<ConversationJson>(platform, 'GET', '/v1/conversations/alice-1', ALICE)).body.title).toBe(
      'Refund for order 1042',
    );
  });

  it('keeps a viewer to reading: listing yes, renaming no', async () => {
    const viewer: Caller = { tenant: TENANT, subject: 'alice', roles: ['viewer'] };
    expect(ids((await list(viewer)).body)).toContain('alice-1');
    expect(await api(platform, 'PATCH', '/v1/conversations/alice-1', viewer, { title: 'no' })).toMatchObject({
      status: 403,
      body: { error: { code: 'FORBIDDEN_ROLE' } },
    });
  });
});

describe('what cannot be stored faithfully, and searching for % and _', () => {
  /** A PATCH with the body exactly as written (JSON.stringify could not write 12345678901234567890). */
  const patchRaw = async (conversationId: string, json: string) => {
    const response = await fetch(`${platform.apiUrl}/v1/conversations/${conversationId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${await tokenFor(ALICE)}`, 'content-type': 'application/json' },
      body: json,
    });
    return {
      status: response.status,
      body: (await response.json()) as { metadata?: unknown; error?: { code: string; details?: { path?: string } } },
    };
  };

  it('refuses a metadata number JavaScript would round, naming its key, and stores nothing of the request', async () => {
    const kept = await patchRaw('alice-2', '{"metadata":{"orderId":9007199254740991,"ratio":12.5,"t":1.50}}');
    expect(kept).toMatchObject({ status: 200, body: { metadata: { orderId: 9007199254740991, ratio: 12.5, t: 1.5 } } });
    for (const [json, path] of [
      ['{"title":"never","metadata":{"orderId":12345678901234567890}}', '$.metadata.orderId'],
      ['{"metadata":{"list":[1,{"huge":1e400}]}}', '$.metadata.list[1].huge'],
      ['{"metadata":{"tiny":1e-400}}', '$.metadata.tiny'],
      ['{"metadata":{"digits":0.1000000000000000000001}}', '$.metadata.digits'],
    ]) {
      const refused = await patchRaw('alice-2', json!);
      expect(refused.status, json).toBe(400);
      expect(refused.body.error, json).toMatchObject({ code: 'INVALID_CONVERSATION_METADATA', details: { path } });
    }
    const read = await api<ConversationJson & { metadata: unknown }>(
      platform,
      'GET',
      '/v1/conversations/alice-2',
      ALICE,
    );
    expect(read.body).toMatchObject({ title: null, metadata: { orderId: 9007199254740991, ratio: 12.5, t: 1.5 } });
  });

  it('refuses NUL and unpaired surrogates in the title, labels and metadata strings and keys', async () => {
    for (const [json, path] of [
      ['{"title":"a\\u0000b"}', '$.title'],
      ['{"title":"half \\ud83d"}', '$.title'],
      ['{"labels":["ok","\\udc00"]}', '$.labels[1]'],
      ['{"metadata":{"note":"x\\u0000"}}', '$.metadata.note'],
      ['{"metadata":{"k\\u0000":"v"}}', '$.metadata["k\\u0000"] (key)'],
    ]) {
      const refused = await patchRaw('alice-2', json!);
      expect(refused.status, json).toBe(400);
      expect(refused.body.error, json).toMatchObject({ code: 'INVALID_CONTENT', details: { path } });
    }
  });

  it('searches titles for % and _ as themselves', async () => {
    expect((await send(ALICE, 'alice-3')).status).toBe(200);
    for (const [id, title] of [
      ['alice-2', 'Save 50% now'],
      ['alice-3', 'Route 500 closed'],
    ])
      expect((await api(platform, 'PATCH', `/v1/conversations/${id}`, ALICE, { title })).status).toBe(200);
    expect(ids((await list(ALICE, `?search=${encodeURIComponent('50%')}`)).body)).toEqual(['alice-2']);
    expect(ids((await list(ALICE, `?search=${encodeURIComponent('50')}`)).body).sort()).toEqual(['alice-2', 'alice-3']);
    expect(ids((await list(ALICE, `?search=${encodeURIComponent('Route_500')}`)).body)).toEqual([]);
    expect(ids((await list(ALICE, `?search=${encodeURIComponent('e 5')}`)).body).sort()).toEqual([
      'alice-2',
      'alice-3',
    ]);
  });
});
