import type { memoryV1 } from '@platform/proto';
import { createLogger, type GrpcClientHandle, PlatformError } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryConfig } from './config.js';
import { startMemoryServer, type MemoryServer } from './server.js';
import { memoryTestClient, memoryTlsEnv } from './test-support/test-memory.js';

const logger = createLogger({ service: 'memory-test', level: 'silent' });
let server: MemoryServer;
// A private NATS: every memory server consumes the one ingestion queue, which suites must not share.
let nats: NatsServerHandle;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;

const user = (content: string): string => JSON.stringify({ role: 'user', content });
// Unusual spacing and key order: stored and returned byte for byte.
const assistantWithToolCall =
  '{"role":"assistant",  "content":null,"toolCalls":[{"id":"call_1","name":"calculator","arguments":"{\\"expression\\": \\"1+1\\"}","providerFields":{"thought_signature":"abc"}}],"model":"sim-1"}';
const toolResult = JSON.stringify({
  role: 'tool',
  toolCallId: 'call_1',
  toolName: 'calculator',
  content: '{"result":2}',
  status: 'success',
  isError: false,
});

beforeAll(async () => {
  nats = await startNatsServer();
  const config = MemoryConfig.parse({
    ...(await memoryTlsEnv()),
    DATABASE_URL: await createSuiteDatabase('memory'),
    NATS_URL: nats.url,
    GRPC_PORT: '0',
    MEMORY_PAGE_SIZE: '3',
    MEMORY_MAX_PAGE_BYTES: String(6 * 1024 * 1024),
  });
  server = await startMemoryServer(config, logger);
  client = await memoryTestClient(server.port, 5_000);
});

afterAll(async () => {
  client.close();
  await server.stop();
  await nats.stop();
});

function append(conversationId: string, messagesJson: string[], extra: Partial<memoryV1.AppendMessagesRequest> = {}) {
  return client.rpc.appendMessages({
    tenantId: 'acme',
    conversationId,
    messagesJson,
    runId: 'run-1',
    appendId: '',
    ...extra,
  });
}

function list(conversationId: string, extra: Partial<memoryV1.ListMessagesRequest> = {}) {
  return client.rpc.listMessages({
    tenantId: 'acme',
    conversationId,
    afterSeq: 0,
    limit: 0,
    latest: false,
    maxBytes: 0,
    ...extra,
  });
}

describe('MemoryService', () => {
  it('stores messages exactly as given and returns them in order', async () => {
    await append('exact', [user('hi'), assistantWithToolCall, toolResult]);
    const { messages } = await list('exact');
    expect(messages.map((m) => m.messageJson)).toEqual([user('hi'), assistantWithToolCall, toolResult]);
    expect(messages.map((m) => m.seq)).toEqual([1, 2, 3]);
    expect(messages[0]!.runId).toBe('run-1');
  });

  it('applies a repeated append id once', async () => {
    const first = await append('idempotent', [user('a'), user('b')], { appendId: 'turn-1' });
    const again = await append('idempotent', [user('a'), user('b')], { appendId: 'turn-1' });
    expect(first).toEqual({ firstSeq: 1, lastSeq: 2, duplicate: false });
    expect(again).toEqual({ firstSeq: 1, lastSeq: 2, duplicate: true });
    expect((await list('idempotent')).messages).toHaveLength(2);
  });

  it('stores a turn once when the same append id arrives many times at once (a resumed run racing its zombie)', async () => {
    await append('racing', [user('before')]);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => append('racing', [user('x'), user('y')], { appendId: 'turn-race' })),
    );
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(new Set(results.map((r) => `${r.firstSeq}-${r.lastSeq}`))).toEqual(new Set(['2-3']));
    expect((await list('racing')).messages.map((m) => m.seq)).toEqual([1, 2, 3]);
    // The sequence keeps no gap after the duplicates.
    expect(await append('racing', [user('after')])).toEqual({ firstSeq: 4, lastSeq: 4, duplicate: false });
  });

  it('gives concurrent appends consecutive sequence numbers without gaps', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => append('concurrent', [user(`m${i}`), user(`m${i}-b`)])));
    const { messages } = await list('concurrent', { limit: 100 });
    expect(messages.map((m) => m.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    // Each append's two messages stay adjacent.
    for (let i = 0; i < 40; i += 2)
      expect(messages[i + 1]!.messageJson).toBe(
        user(`${(JSON.parse(messages[i]!.messageJson) as { content: string }).content}-b`),
      );
  });

  it('pages from the start or the end', async () => {
    await append('paged', ['1', '2', '3', '4', '5'].map(user));
    const firstPage = await list('paged');
    expect(firstPage.messages.map((m) => m.seq)).toEqual([1, 2, 3]);
    expect(firstPage.hasMore).toBe(true);
    const next = await list('paged', { afterSeq: 3 });
    expect(next.messages.map((m) => m.seq)).toEqual([4, 5]);
    expect(next.hasMore).toBe(false);
    const latest = await list('paged', { latest: true, limit: 2 });
    expect(latest.messages.map((m) => m.seq)).toEqual([4, 5]);
  });

  it('ends a page at max_bytes (at least one message), from the start or the end, and says more remain', async () => {
    // Five messages of ~100 KB: a 250 KB page holds two.
    const big = (i: number) => user(`${i}`.repeat(100_000));
    await append('bytes', [1, 2, 3, 4, 5].map(big));
    const size = Buffer.byteLength(big(1));
    const first = await list('bytes', { limit: 10, maxBytes: 250_000 });
    expect(first.messages.map((m) => m.seq)).toEqual([1, 2]);
    expect(first.hasMore).toBe(true);
    expect(first.messages.reduce((n, m) => n + Buffer.byteLength(m.messageJson), 0)).toBe(2 * size);
    const latest = await list('bytes', { limit: 10, maxBytes: 250_000, latest: true });
    expect(latest.messages.map((m) => m.seq)).toEqual([4, 5]);
    expect(latest.hasMore).toBe(true);
    // A budget smaller than one message still returns that message.
    const tight = await list('bytes', { limit: 10, maxBytes: 10, afterSeq: 4 });
    expect(tight.messages.map((m) => m.seq)).toEqual([5]);
    expect(tight.hasMore).toBe(false);
    // The message count still applies below the byte budget.
    expect((await list('bytes', { limit: 1, maxBytes: 6 * 1024 * 1024 })).messages.map((m) => m.seq)).toEqual([1]);
  });

  it('returns pages far beyond 4 MiB in total (grpc-js refuses larger messages by default) page by page, and refuses a larger max_bytes', async () => {
    // 30 messages of 250 KB: 7.5 MB of history.
    const big = user('x'.repeat(250_000));
    await append(
      'huge',
      Array.from({ length: 30 }, () => big),
    );
    const seen: number[] = [];
    let afterSeq = 0;
    for (let more = true; more;) {
      const page = await list('huge', { afterSeq, limit: 100 });
      seen.push(...page.messages.map((m) => m.seq));
      afterSeq = page.messages.at(-1)!.seq;
      more = page.hasMore;
    }
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect((await list('huge', { limit: 100, latest: true })).messages).toHaveLength(25);
    const error = await list('huge', { maxBytes: 7 * 1024 * 1024 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'invalid_argument', code: 'INVALID_MAX_BYTES' });
  });

  it('keeps tenants apart', async () => {
    await append('shared-id', [user('acme secret')]);
    const other = await client.rpc.listMessages({
      tenantId: 'globex',
      conversationId: 'shared-id',
      afterSeq: 0,
      limit: 0,
      latest: false,
      maxBytes: 0,
    });
    expect(other.messages).toEqual([]);
  });

  it.each([
    [{ messagesJson: ['not json'] }, 'INVALID_MESSAGE'],
    [{ messagesJson: [JSON.stringify({ role: 'wizard', content: 'x' })] }, 'INVALID_MESSAGE'],
    [{ messagesJson: [JSON.stringify({ role: 'tool', toolCallId: 'c', content: 'x' })] }, 'INVALID_MESSAGE'],
    [{ tenantId: '' }, 'INVALID_TENANT_ID'],
    [{ conversationId: 'bad id with spaces' }, 'INVALID_CONVERSATION_ID'],
  ])('rejects bad input %j with %s and stores nothing', async (override, code) => {
    const error = await append('rejects', [user('ok')], override).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ kind: 'invalid_argument', code });
    expect((await list('rejects')).messages).toEqual([]);
  });
});
