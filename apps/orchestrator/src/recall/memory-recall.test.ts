import { MEMORY_CONTEXT_CLOSE, MEMORY_CONTEXT_OPEN, memoryContextItems } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import { createLogger, errors, type GrpcClientHandle } from '@platform/service-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { memoryClient, recalledFact, ScriptedMemoryServer } from '../test-support/scripted-memory-server.js';
import { MemoryRecall, withMemoryContext, type MemoryRecallSettings } from './memory-recall.js';
import { prepareContext } from '../context/prepare-context.js';

const logger = createLogger({ service: 'test', level: 'silent' });
const settings: MemoryRecallSettings = {
  contextTokens: 200,
  timeoutMs: 300,
  limit: 5,
  maxInFlight: 0,
  collectionPrefix: 'user:alice',
  charsPerToken: 4,
};
const query = { tenantId: 'tenant-a', conversationId: 'conv-1', query: 'Which seat should I book?' };

let server: ScriptedMemoryServer;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;

beforeAll(async () => {
  server = new ScriptedMemoryServer();
  client = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.received.length = 0;
  server.script = () => Promise.resolve({});
});

describe('MemoryRecall', () => {
  it('asks for the tenant, message and budget, and injects the items as a delimited block with the reasons', async () => {
    server.script = () =>
      Promise.resolve({
        searchMode: 'hybrid',
        items: [
          recalledFact('f-1', 'user prefers window seats (since 2026-11-24)', {
            matchedBy: ['fulltext#1', 'vector#1'],
            why: 'full text rank 1, vector rank 1',
          }),
          recalledFact('f-2', 'user lives in Berlin'),
        ],
        droppedForBudget: 3,
      });
    const { block, report } = await new MemoryRecall(client.rpc, settings, logger).recall(query);
    expect(server.received[0]).toMatchObject({
      tenantId: 'tenant-a',
      query: query.query,
      conversationId: 'conv-1',
      collectionPrefix: 'user:alice',
      limit: 5,
      includeEpisodes: true,
    });
    expect(server.received[0]?.tokenBudget).toBeLessThan(200);
    expect(block?.startsWith(MEMORY_CONTEXT_OPEN)).toBe(true);
    expect(block?.endsWith(MEMORY_CONTEXT_CLOSE)).toBe(true);
    expect(memoryContextItems(block ?? '')).toEqual([
      'user prefers window seats (since 2026-11-24)',
      'user lives in Berlin',
    ]);
    expect(report).toMatchObject({ status: 'injected', searchMode: 'hybrid', droppedForBudget: 3, budgetTokens: 200 });
    expect(report.items[0]).toMatchObject({
      kind: 'fact',
      id: 'f-1',
      matchedBy: ['fulltext#1', 'vector#1'],
      why: 'full text rank 1, vector rank 1',
    });
    expect(report.blockTokens).toBe(Math.ceil((block ?? '').length / 4));
    expect(report.blockTokens).toBeLessThanOrEqual(200);
  });

  it('never exceeds the budget, whatever the memory service returns', async () => {
    const long = 'x'.repeat(300);
    server.script = () =>
      Promise.resolve({
        searchMode: 'keyword',
        items: [recalledFact('f-1', 'short fact'), recalledFact('f-2', long), recalledFact('f-3', 'another short one')],
      });
    const { block, report } = await new MemoryRecall(client.rpc, { ...settings, contextTokens: 90 }, logger).recall(
      query,
    );
    expect(memoryContextItems(block ?? '')).toEqual(['short fact', 'another short one']);
    expect(report.blockTokens).toBeLessThanOrEqual(90);
    expect(report.droppedForBudget).toBe(1);
  });

  it("takes an agent's smaller budget, never one above the orchestrator's", async () => {
    const recall = new MemoryRecall(client.rpc, settings, logger);
    expect((await recall.recall({ ...query, budgetTokens: 120 })).report.budgetTokens).toBe(120);
    expect((await recall.recall({ ...query, budgetTokens: 5_000 })).report.budgetTokens).toBe(200);
    const [smaller, capped] = server.received.map((r) => r.tokenBudget);
    expect(smaller).toBeLessThan(120);
    expect(capped).toBeGreaterThan(120);
    expect(capped).toBeLessThan(200);
  });

  it('injects nothing when nothing is relevant, and says so', async () => {
    server.script = () => Promise.resolve({ searchMode: 'recent_history', items: [] });
    const { block, report } = await new MemoryRecall(client.rpc, settings, logger).recall(query);
    expect(block).toBeUndefined();
    expect(report).toMatchObject({ status: 'nothing_relevant', searchMode: 'recent_history', items: [] });
  });

  it('gives up at its deadline when memory is slow', async () => {
    server.script = () =>
      new Promise((resolve) => setTimeout(() => resolve({ items: [recalledFact('f-1', 'late')] }), 2_000));
    const { block, report } = await new MemoryRecall(client.rpc, { ...settings, timeoutMs: 50 }, logger).recall(query);
    expect(block).toBeUndefined();
    expect(report.status).toBe('timed_out');
    expect(report.error).toBeTruthy();
  });

  it('reports a failing memory service as failed', async () => {
    server.script = () => Promise.reject(errors.internal('RECALL_BROKE', 'index corrupted'));
    const { block, report } = await new MemoryRecall(client.rpc, settings, logger).recall(query);
    expect(block).toBeUndefined();
    expect(report.status).toBe('failed');
  });

  it('does not call memory when recall is off or the message is empty', async () => {
    expect(
      (await new MemoryRecall(client.rpc, { ...settings, contextTokens: 0 }, logger).recall(query)).report.status,
    ).toBe('disabled');
    expect((await new MemoryRecall(client.rpc, settings, logger).recall({ ...query, query: '  ' })).report.status).toBe(
      'disabled',
    );
    expect(server.received).toHaveLength(0);
  });

  it("keeps each run's report for its record until the run is released", async () => {
    server.script = () =>
      Promise.resolve({ searchMode: 'keyword', items: [recalledFact('f-1', 'user prefers window seats')] });
    const recall = new MemoryRecall(client.rpc, settings, logger);
    await recall.recall({ ...query, runId: 'run-1' });
    await recall.recall(query);
    expect(recall.reportFor('run-1', undefined)).toMatchObject({ status: 'injected', items: [{ id: 'f-1' }] });
    expect(recall.reportFor('run-2', undefined)).toBeUndefined();
    const journaled = [
      {
        role: 'system' as const,
        content: withMemoryContext(
          'Persona',
          `${MEMORY_CONTEXT_OPEN}\n- user lives in Berlin\n${MEMORY_CONTEXT_CLOSE}`,
        ),
      },
    ];
    expect(recall.reportFor('run-2', journaled)).toMatchObject({
      status: 'recovered',
      items: [{ text: 'user lives in Berlin' }],
    });
    recall.release('run-1');
    expect(recall.reportFor('run-1', undefined)).toBeUndefined();
  });

  it('reads a journaled prompt back for a resumed run', () => {
    const recall = new MemoryRecall(client.rpc, settings, logger);
    const system = withMemoryContext(
      'You are a travel agent.',
      `${MEMORY_CONTEXT_OPEN}\npreamble\n- user prefers window seats\n${MEMORY_CONTEXT_CLOSE}`,
    );
    expect(recall.recovered(system)).toMatchObject({
      status: 'recovered',
      items: [{ kind: 'unknown', text: 'user prefers window seats' }],
    });
    expect(recall.recovered('You are a travel agent.').status).toBe('nothing_relevant');
  });
});

describe('MemoryRecall with its concurrency cap', () => {
  it('does not send a recall past the cap: the turn gets a shed report at once', async () => {
    let answer: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (answer = resolve));
    server.script = async () => {
      await held;
      return { searchMode: 'keyword', items: [recalledFact('f-1', 'user prefers window seats')] };
    };
    const recall = new MemoryRecall(client.rpc, { ...settings, maxInFlight: 2 }, logger);
    const first = [recall.recall(query), recall.recall(query)];
    const started = performance.now();
    const shed = await recall.recall(query);
    expect(performance.now() - started).toBeLessThan(settings.timeoutMs);
    expect(shed.block).toBeUndefined();
    expect(shed.report.status).toBe('shed');
    expect(shed.report.error).toMatch(
      /2 recalls in flight reached this orchestrator's adaptive limit \(2 of at most 2\)/,
    );
    answer();
    expect((await Promise.all(first)).map((outcome) => outcome.report.status)).toEqual(['injected', 'injected']);
    expect(server.received).toHaveLength(2);
    expect(recall.concurrency.inFlight).toBe(0);
    expect((await recall.recall(query)).report.status).toBe('injected');
  });

  it('sends fewer recalls at once after they time out, and more again once memory answers in time', async () => {
    let slow = true;
    server.script = () =>
      new Promise((resolve) => setTimeout(() => resolve({ items: [recalledFact('f-1', 'late')] }), slow ? 400 : 1));
    const recall = new MemoryRecall(client.rpc, { ...settings, timeoutMs: 100, maxInFlight: 8 }, logger);
    const overloaded = await Promise.all(Array.from({ length: 8 }, () => recall.recall(query)));
    expect(overloaded.every((outcome) => outcome.report.status === 'timed_out')).toBe(true);
    expect(recall.concurrency.limit).toBe(6);

    server.received.length = 0;
    const capped = await Promise.all(Array.from({ length: 8 }, () => recall.recall(query)));
    expect(capped.filter((outcome) => outcome.report.status === 'shed')).toHaveLength(2);
    expect(server.received).toHaveLength(6);

    slow = false;
    for (let i = 0; i < 20 && recall.concurrency.limit < 8; i++)
      await Promise.all(Array.from({ length: recall.concurrency.limit }, () => recall.recall(query)));
    expect(recall.concurrency.limit).toBe(8);
    const recovered = await Promise.all(Array.from({ length: 8 }, () => recall.recall(query)));
    expect(recovered.every((outcome) => outcome.report.status === 'injected')).toBe(true);
  });

  it('does not shrink for a memory service that is down: those failures are quick, not load', async () => {
    server.script = () => Promise.reject(errors.unavailable('DOWN', 'memory is restarting'));
    const recall = new MemoryRecall(client.rpc, { ...settings, maxInFlight: 4 }, logger);
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => recall.recall(query)));
    expect(outcomes.map((outcome) => outcome.report.status)).toEqual([
      'unavailable',
      'unavailable',
      'unavailable',
      'unavailable',
    ]);
    expect(recall.concurrency.limit).toBe(4);
  });
});

describe('prepareContext with recall', () => {
  const input = {
    tenantId: 'tenant-a',
    conversationId: 'conv-1',
    content: 'Which seat?',
    systemPrompt: 'You are a travel agent.',
    timeZone: 'UTC',
    capabilities: [],
    now: new Date('2026-11-24T12:00:00Z'),
  };

  it('puts the block in the system prompt, after the persona', async () => {
    server.script = () =>
      Promise.resolve({ searchMode: 'keyword', items: [recalledFact('f-1', 'user prefers window seats')] });
    const prepared = await prepareContext(
      client.rpc,
      { messages: 10, bytes: 10_000 },
      { ...input, memoryRecall: new MemoryRecall(client.rpc, settings, logger) },
    );
    const system = prepared.messages[0];
    expect(system?.role).toBe('system');
    expect(system?.content).toMatch(/^You are a travel agent\.\n\n<long_term_memory>\n/);
    expect(memoryContextItems(system?.content ?? '')).toEqual(['user prefers window seats']);
    expect(prepared.memoryRecall?.status).toBe('injected');
    expect(prepared.messages.at(-1)).toEqual({ role: 'user', content: 'Which seat?' });
  });

  it('prepares the turn without the block when recall times out', async () => {
    server.script = () => new Promise((resolve) => setTimeout(() => resolve({}), 2_000));
    const prepared = await prepareContext(
      client.rpc,
      { messages: 10, bytes: 10_000 },
      { ...input, memoryRecall: new MemoryRecall(client.rpc, { ...settings, timeoutMs: 50 }, logger) },
    );
    expect(prepared.messages[0]?.content).not.toContain(MEMORY_CONTEXT_OPEN);
    expect(prepared.memoryRecall?.status).toBe('timed_out');
  });
});

describe('MemoryRecall with memory stopped', () => {
  it('reports memory as unavailable and injects nothing', async () => {
    const stopped = new ScriptedMemoryServer();
    await stopped.start();
    await stopped.stop();
    // Nothing listens at its address any more: the orchestrator's client finds memory down.
    const orphan = await memoryClient(stopped.address);
    try {
      const { block, report } = await new MemoryRecall(orphan.rpc, settings, logger).recall(query);
      expect(block).toBeUndefined();
      expect(['unavailable', 'timed_out']).toContain(report.status);
    } finally {
      orphan.close();
    }
  });
});
