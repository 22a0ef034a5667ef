import type { memoryV1 } from '@platform/proto';
import { createLogger, errors, type GrpcClientHandle } from '@platform/service-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recalledFact, ScriptedMemoryServer } from '../test-support/scripted-memory-server.js';
import { MemoryRecall, type MemoryRecallSettings } from './memory-recall.js';
import { PrefetchedRecalls } from './prefetched-recalls.js';

const logger = createLogger({ service: 'test', level: 'silent' });
const settings: MemoryRecallSettings = {
  contextTokens: 200,
  timeoutMs: 300,
  limit: 5,
  maxInFlight: 0,
  collectionPrefix: '',
  charsPerToken: 4,
};
const query = { runId: 'run-1', tenantId: 'tenant-a', conversationId: 'conv-1', query: 'Which seat should I book?' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: ScriptedMemoryServer;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;

beforeAll(async () => {
  server = new ScriptedMemoryServer();
  client = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.received.length = 0;
  server.script = () =>
    Promise.resolve({ searchMode: 'keyword', items: [recalledFact('f-1', 'user prefers window seats')] });
});

describe('MemoryRecall.prefetch', () => {
  it('starts the recall when the message arrives, and the run takes that outcome without asking again', async () => {
    let answer: (() => void) | undefined;
    server.script = () =>
      new Promise(
        (resolve) =>
          (answer = () =>
            resolve({ searchMode: 'keyword', items: [recalledFact('f-1', 'user prefers window seats')] })),
      );
    const recall = new MemoryRecall(client.rpc, settings, logger);
    recall.prefetch(query);
    // The search is under way before the run asks for it (admission and claim happen meanwhile).
    await expect.poll(() => server.received.length).toBe(1);
    const taken = recall.recall(query);
    answer!();
    const { block, report } = await taken;
    expect(block).toContain('user prefers window seats');
    expect(report).toMatchObject({ status: 'injected', items: [{ id: 'f-1' }] });
    expect(server.received).toHaveLength(1);
    expect(recall.reportFor('run-1', undefined)?.status).toBe('injected');
  });

  it('is taken once: a second attempt of the run recalls afresh', async () => {
    const recall = new MemoryRecall(client.rpc, settings, logger);
    recall.prefetch(query);
    await recall.recall(query);
    await recall.recall(query);
    expect(server.received).toHaveLength(2);
  });

  it('is not used for another message, tenant or conversation under the same run id', async () => {
    const recall = new MemoryRecall(client.rpc, settings, logger);
    for (const other of [{ query: 'Something else' }, { tenantId: 'tenant-b' }, { conversationId: 'conv-2' }]) {
      server.received.length = 0;
      recall.prefetch(query);
      await recall.recall({ ...query, ...other });
      expect(server.received).toHaveLength(2);
      expect(server.received[1]).toMatchObject({
        tenantId: other.tenantId ?? 'tenant-a',
        query: other.query ?? query.query,
        conversationId: other.conversationId ?? 'conv-1',
      });
    }
  });

  it('is dropped when its run starts too late, and the run recalls afresh', async () => {
    const recall = new MemoryRecall(client.rpc, settings, logger, { maxAgeMs: 30, maxEntries: 10 });
    recall.prefetch(query);
    await sleep(80);
    server.script = () =>
      Promise.resolve({ searchMode: 'keyword', items: [recalledFact('f-2', 'user lives in Berlin')] });
    const { report } = await recall.recall(query);
    expect(server.received).toHaveLength(2);
    expect(report.items.map((i) => i.id)).toEqual(['f-2']);
  });

  it('holds a bounded number: past it, messages are not prefetched and their runs recall when they start', async () => {
    const recall = new MemoryRecall(client.rpc, settings, logger, { maxAgeMs: 5_000, maxEntries: 2 });
    for (const runId of ['run-1', 'run-2', 'run-3']) recall.prefetch({ ...query, runId });
    await expect.poll(() => server.received.length).toBe(2);
    await sleep(20);
    expect(server.received).toHaveLength(2);
    await recall.recall({ ...query, runId: 'run-3' });
    expect(server.received).toHaveLength(3);
    // Taking one frees its place.
    await recall.recall({ ...query, runId: 'run-1' });
    recall.prefetch({ ...query, runId: 'run-4' });
    await expect.poll(() => server.received.length).toBe(4);
  });

  it('hands a failed or late prefetch to its run as the report of the failure, without a second wait', async () => {
    server.script = () => Promise.reject(errors.unavailable('MEMORY_DOWN', 'memory is restarting'));
    const recall = new MemoryRecall(client.rpc, settings, logger);
    recall.prefetch(query);
    const { block, report } = await recall.recall(query);
    expect(block).toBeUndefined();
    expect(report.status).toBe('unavailable');
    expect(server.received).toHaveLength(1);

    server.received.length = 0;
    server.script = () =>
      new Promise((resolve) => setTimeout(() => resolve({ items: [recalledFact('f-1', 'late')] }), 2_000));
    const slow = new MemoryRecall(client.rpc, { ...settings, timeoutMs: 50 }, logger);
    slow.prefetch(query);
    const started = Date.now();
    expect((await slow.recall(query)).report.status).toBe('timed_out');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(server.received).toHaveLength(1);
  });

  it('never leaves a rejected recall nobody took as an unhandled rejection', async () => {
    const prefetched = new PrefetchedRecalls({ maxAgeMs: 10, maxEntries: 10 });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      expect(prefetched.put('run-1', query, () => Promise.reject(new Error('recall blew up')))).toBe(true);
      await sleep(100);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    expect(prefetched.size).toBe(0);
  });
});
