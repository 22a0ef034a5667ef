import type { memoryV1 } from '@platform/proto';
import { createLogger, type GrpcClientHandle, PlatformError } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryConfig } from './config.js';
import { MAX_FORK_DEPTH } from './message-store.js';
import { MEMORY_SCHEMA, startMemoryServer, type MemoryServer } from './server.js';
import { memoryTestClient, memoryTlsEnv } from './test-support/test-memory.js';

const logger = createLogger({ service: 'memory-forks-test', level: 'silent' });
let server: MemoryServer;
let nats: NatsServerHandle;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;
let db: pg.Pool;

const user = (content: string): string => JSON.stringify({ role: 'user', content });
const assistant = (content: string): string => JSON.stringify({ role: 'assistant', content });
const toolCalls = JSON.stringify({
  role: 'assistant',
  content: null,
  toolCalls: [
    { id: 'call_1', name: 'calculator', arguments: '{"expression":"1+1"}' },
    { id: 'call_2', name: 'calculator', arguments: '{"expression":"2+2"}' },
  ],
});
const result = (id: string, content: string) =>
  JSON.stringify({ role: 'tool', toolCallId: id, toolName: 'calculator', content, status: 'success', isError: false });

beforeAll(async () => {
  nats = await startNatsServer();
  const url = await createSuiteDatabase('memory');
  const config = MemoryConfig.parse({
    ...(await memoryTlsEnv()),
    DATABASE_URL: url,
    NATS_URL: nats.url,
    GRPC_PORT: '0',
  });
  server = await startMemoryServer(config, logger);
  client = await memoryTestClient(server.port, 5_000);
  db = new pg.Pool({ connectionString: url, options: `-c search_path=${MEMORY_SCHEMA}`, max: 1 });
});

afterAll(async () => {
  await db.end();
  client.close();
  await server.stop();
  await nats.stop();
});

const append = (conversationId: string, messagesJson: string[], tenantId = 'acme') =>
  client.rpc.appendMessages({ tenantId, conversationId, messagesJson, runId: '', appendId: '' });

const fork = (conversationId: string, atSeq: number, newConversationId: string, tenantId = 'acme') =>
  client.rpc.forkConversation({ tenantId, conversationId, atSeq, newConversationId });

async function history(conversationId: string, extra: Partial<memoryV1.ListMessagesRequest> = {}) {
  const page = await client.rpc.listMessages({
    tenantId: 'acme',
    conversationId,
    afterSeq: 0,
    limit: 1000,
    latest: false,
    maxBytes: 0,
    ...extra,
  });
  return page.messages.map((m) => [m.seq, (JSON.parse(m.messageJson) as { content: string }).content]);
}

const storedRows = async (conversationId: string) =>
  Number(
    (
      await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM messages WHERE tenant_id = $1 AND conversation_id = $2',
        ['acme', conversationId],
      )
    ).rows[0]!.n,
  );

async function refusal(promise: Promise<unknown>): Promise<{ kind: string; code: string }> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PlatformError);
  return { kind: (error as PlatformError).kind, code: (error as PlatformError).code };
}

describe('ForkConversation', () => {
  it('gives a fork its own copy of the history it read when the conversation it came from is deleted', async () => {
    await append('doomed', [user('d1'), assistant('d2'), user('d3'), assistant('d4')]);
    await fork('doomed', 2, 'doomed-fork');
    await append('doomed-fork', [user('f3')]);
    await fork('doomed-fork', 3, 'doomed-fork-fork');
    const before = await history('doomed-fork');
    const grandBefore = await history('doomed-fork-fork');
    await client.rpc.deleteConversation({ tenantId: 'acme', conversationId: 'doomed', actor: 'alice', reason: 'test' });
    expect(await storedRows('doomed')).toBe(0);
    expect(await history('doomed-fork')).toEqual(before);
    expect(before).toEqual([
      [1, 'd1'],
      [2, 'd2'],
      [3, 'f3'],
    ]);
    expect(await storedRows('doomed-fork')).toBe(3);
    // A fork of the fork still reads through it, unchanged.
    expect(await history('doomed-fork-fork')).toEqual(grandBefore);
    expect(await storedRows('doomed-fork-fork')).toBe(0);
  });

  it('forks a long conversation at a middle seq without copying its rows, and the fork grows on its own', async () => {
    const turns = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? user(`u${i + 1}`) : assistant(`a${i + 1}`)));
    await append('long', turns.slice(0, 100));
    await append('long', turns.slice(100));

    const forked = await fork('long', 120, 'long-fork');
    expect(forked).toEqual({ conversationId: 'long-fork', parentConversationId: 'long', atSeq: 120, depth: 1 });
    expect(await storedRows('long-fork')).toBe(0);

    const appended = await append('long-fork', [user('fork question'), assistant('fork answer')]);
    expect([appended.firstSeq, appended.lastSeq]).toEqual([121, 122]);
    expect(await storedRows('long-fork')).toBe(2);

    const forkHistory = await history('long-fork');
    expect(forkHistory).toHaveLength(122);
    expect(forkHistory.slice(0, 120)).toEqual((await history('long')).slice(0, 120));
    expect(forkHistory.slice(118)).toEqual([
      [119, 'u119'],
      [120, 'a120'],
      [121, 'fork question'],
      [122, 'fork answer'],
    ]);
    // The parent is unchanged.
    expect(await history('long')).toHaveLength(200);
    expect(await storedRows('long')).toBe(200);

    // Paging across the cutoff: from the start, from the end, and after a seq inside the prefix.
    const firstPage = await client.rpc.listMessages({
      tenantId: 'acme',
      conversationId: 'long-fork',
      afterSeq: 118,
      limit: 3,
      latest: false,
      maxBytes: 0,
    });
    expect(firstPage.messages.map((m) => m.seq)).toEqual([119, 120, 121]);
    expect(firstPage.hasMore).toBe(true);
    expect(await history('long-fork', { latest: true, limit: 3 })).toEqual([
      [120, 'a120'],
      [121, 'fork question'],
      [122, 'fork answer'],
    ]);
  });

  it('forks a fork: the prefix is read through both parents, cut at the nearer cutoff', async () => {
    await append('root', [user('r1'), assistant('r2'), user('r3'), assistant('r4')]);
    await fork('root', 4, 'child');
    await append('child', [user('c5'), assistant('c6')]);
    await fork('child', 5, 'grandchild');
    await append('grandchild', [assistant('g6')]);
    expect(await history('grandchild')).toEqual([
      [1, 'r1'],
      [2, 'r2'],
      [3, 'r3'],
      [4, 'r4'],
      [5, 'c5'],
      [6, 'g6'],
    ]);
    // A fork of the fork at a seq inside the root's part keeps only that much of the root.
    expect((await fork('child', 2, 'short')).depth).toBe(2);
    expect(await history('short')).toEqual([
      [1, 'r1'],
      [2, 'r2'],
    ]);
    expect(await history('child')).toEqual([
      [1, 'r1'],
      [2, 'r2'],
      [3, 'r3'],
      [4, 'r4'],
      [5, 'c5'],
      [6, 'c6'],
    ]);
    // at_seq 0 is the latest message.
    expect((await fork('grandchild', 0, 'latest')).atSeq).toBe(6);
  });

  it(`refuses a fork deeper than ${MAX_FORK_DEPTH} forks from its root`, async () => {
    await append('deep-0', [user('start')]);
    for (let depth = 1; depth <= MAX_FORK_DEPTH; depth++) {
      expect((await fork(`deep-${depth - 1}`, 1, `deep-${depth}`)).depth).toBe(depth);
    }
    expect(await history(`deep-${MAX_FORK_DEPTH}`)).toEqual([[1, 'start']]);
    expect(await refusal(fork(`deep-${MAX_FORK_DEPTH}`, 1, 'too-deep'))).toEqual({
      kind: 'failed_precondition',
      code: 'FORK_TOO_DEEP',
    });
  });

  it('refuses a seq the conversation has not reached, an unknown conversation and another tenant', async () => {
    await append('short-parent', [user('one'), assistant('two')]);
    expect(await refusal(fork('short-parent', 3, 'bad-seq'))).toEqual({ kind: 'not_found', code: 'MESSAGE_NOT_FOUND' });
    expect(await refusal(fork('short-parent', -1, 'bad-seq'))).toEqual({
      kind: 'invalid_argument',
      code: 'INVALID_SEQ',
    });
    expect(await refusal(fork('never-was', 1, 'bad-seq'))).toEqual({
      kind: 'not_found',
      code: 'CONVERSATION_NOT_FOUND',
    });
    expect(await refusal(fork('short-parent', 1, 'stolen', 'globex'))).toEqual({
      kind: 'not_found',
      code: 'CONVERSATION_NOT_FOUND',
    });
    // Nothing was created by the refusals.
    const created = await db.query('SELECT 1 FROM conversations WHERE conversation_id IN ($1, $2)', [
      'bad-seq',
      'stolen',
    ]);
    expect(created.rowCount).toBe(0);
    // An id that is taken is refused, and the taken conversation is unchanged.
    expect(await refusal(fork('short-parent', 1, 'short-parent'))).toEqual({
      kind: 'already_exists',
      code: 'CONVERSATION_EXISTS',
    });
    expect(await history('short-parent')).toHaveLength(2);
  });

  it('another tenant cannot read a fork of this tenant, nor is a same-named conversation of its own joined in', async () => {
    await append('shared-name', [user('acme secret')]);
    await fork('shared-name', 1, 'acme-fork');
    await append('shared-name', [user('globex own')], 'globex');
    await append('acme-fork', [user('globex fork own')], 'globex');
    const globex = await client.rpc.listMessages({
      tenantId: 'globex',
      conversationId: 'acme-fork',
      afterSeq: 0,
      limit: 10,
      latest: false,
      maxBytes: 0,
    });
    expect(globex.messages.map((m) => m.messageJson)).toEqual([user('globex fork own')]);
    expect(await history('acme-fork')).toEqual([[1, 'acme secret']]);
  });

  it('never starts a fork inside a tool call and its results', async () => {
    await append('tools', [user('sum'), toolCalls, result('call_1', '2'), result('call_2', '4'), assistant('2 and 4')]);
    for (const inside of [2, 3]) {
      expect(await refusal(fork('tools', inside, `tools-${inside}`))).toEqual({
        kind: 'failed_precondition',
        code: 'FORK_INSIDE_TOOL_CALL',
      });
    }
    // Before the call and after its last result are fine.
    expect((await fork('tools', 1, 'tools-1')).atSeq).toBe(1);
    expect((await fork('tools', 4, 'tools-4')).atSeq).toBe(4);
    expect(await history('tools-4')).toHaveLength(4);
  });

  it('refuses to fork a conversation whose latest message is a tool call still waiting for results', async () => {
    await append('pending', [user('sum'), toolCalls]);
    expect(await refusal(fork('pending', 0, 'pending-fork'))).toEqual({
      kind: 'failed_precondition',
      code: 'FORK_INSIDE_TOOL_CALL',
    });
  });
});
