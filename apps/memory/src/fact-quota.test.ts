import type { TurnFinished } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import { createLogger, PlatformError, type GrpcClientHandle } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Extraction } from './extraction/extraction-schema.js';
import { TurnBatchWriter, type TurnToStore } from './knowledge/turn-batch-writer.js';
import type { MemoryServer } from './server.js';
import { startTestMemory } from './test-support/test-memory.js';

// Issue 34, item 9: one tenant saved 400 facts of maximum size. The current facts a tenant holds
// are a quota of its tier (TENANT_TIERS `facts`), checked in the save's transaction; facts learned
// from conversations (the ingestion writer, on the same database) count and stop at it too.
const logger = createLogger({ service: 'memory-fact-quota-test', level: 'silent' });
let nats: NatsServerHandle;
let server: MemoryServer;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;
let db: pg.Pool;
let writer: TurnBatchWriter;
const QUOTAS: Record<string, number> = { default: 3, pro: 6 };

beforeAll(async () => {
  nats = await startNatsServer();
  const url = await createSuiteDatabase('memory_fact_quota', { pgvector: false });
  ({ server, client } = await startTestMemory(
    { databaseUrl: url, natsUrl: nats.url },
    { MEMORY_TOOLS_ENABLED: 'false', TENANT_TIERS: JSON.stringify({ default: { facts: 3 }, pro: { facts: 6 } }) },
    logger,
  ));
  db = new pg.Pool({ connectionString: url, options: '-c search_path=memory', max: 4 });
  // As server.ts builds it, with the tiers above.
  writer = new TurnBatchWriter(db, new Set(['lives_in']), (tier) => {
    const applied = tier in QUOTAS ? tier : 'default';
    return { maxFacts: QUOTAS[applied]!, tier: applied };
  });
}, 60_000);

afterAll(async () => {
  await db?.end();
  client?.close();
  await server?.stop();
  await nats?.stop();
});

function save(tenantId: string, subject: string, predicate: string, object: string, tier?: string) {
  return client.rpc.saveFact({
    tenantId,
    collection: 'user:x',
    subject,
    predicate,
    object,
    kind: '',
    confidence: 0,
    conversationId: '',
    runId: '',
    messageSeq: 0,
    ...(tier !== undefined ? { tier } : {}),
  });
}

let runs = 0;
/** A finished turn of `tenantId` whose extraction states `facts` (subject Dee), with an episode. */
function learned(tenantId: string, facts: Array<[string, string]>, tier?: string): TurnToStore {
  const runId = `run-${(runs += 1)}`;
  const turn: TurnFinished = {
    type: 'memory.turn_finished',
    tenantId,
    conversationId: `conv-${runId}`,
    runId,
    ...(tier !== undefined ? { tier } : {}),
    firstSeq: 1,
    lastSeq: 2,
    finishedAt: new Date().toISOString(),
  };
  const extraction = Extraction.parse({
    facts: facts.map(([predicate, object]) => ({ subject: 'Dee', predicate, object, confidence: 0.9, sourceSeq: 1 })),
    episodeSummary: `Dee talked (${runId}).`,
  });
  return { turn, collection: 'user:x', extraction };
}

async function currentObjects(tenantId: string): Promise<string[]> {
  const { facts } = await client.rpc.listFacts({
    tenantId,
    collectionPrefix: '',
    subject: '',
    includeSuperseded: false,
    pageSize: 0,
    pageToken: '',
  });
  return facts.map((f) => f.object).sort();
}

async function rejectionOf(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('the facts quota', () => {
  it("refuses a new fact past the tier's quota with QUOTA_EXCEEDED facts, and stores nothing", async () => {
    for (const city of ['Oslo', 'Porto', 'Quito']) await save('full', 'Ann', 'visited', city);
    const error = await rejectionOf(save('full', 'Ann', 'visited', 'Riga'));
    expect(error).toMatchObject({
      kind: 'resource_exhausted',
      code: 'QUOTA_EXCEEDED',
      details: { quota: 'facts', limit: 3, tier: 'default' },
    });
    const { facts } = await client.rpc.listFacts({
      tenantId: 'full',
      collectionPrefix: '',
      subject: '',
      includeSuperseded: true,
      pageSize: 0,
      pageToken: '',
    });
    expect(facts.map((f) => f.object).sort()).toEqual(['Oslo', 'Porto', 'Quito']);
  });

  it('still accepts, at the quota, a duplicate and a fact that replaces a current one', async () => {
    await save('replacing', 'Ben', 'lives_in', 'Oslo');
    await save('replacing', 'Ben', 'plays', 'chess');
    await save('replacing', 'Ben', 'owns', 'a boat');
    expect((await save('replacing', 'Ben', 'plays', 'chess')).duplicate).toBe(true);
    // lives_in holds one value: the new city supersedes the old, the count stays 3.
    expect((await save('replacing', 'Ben', 'lives_in', 'Porto')).supersededFactIds).toHaveLength(1);
    expect(await rejectionOf(save('replacing', 'Ben', 'likes', 'tea'))).toMatchObject({ code: 'QUOTA_EXCEEDED' });
  });

  it('follows the tier, counts each tenant apart, and lets exactly the quota through when saves race', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        save('racing', 'Cleo', 'visited', `city ${i}`, 'pro').then(
          () => 'saved',
          (err: { code?: string }) => err.code ?? 'other',
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'saved')).toHaveLength(6);
    expect(outcomes.filter((o) => o === 'QUOTA_EXCEEDED')).toHaveLength(6);
    await save('racing-neighbour', 'Cleo', 'visited', 'Oslo');
  });
});

describe('the facts quota on what memory learns from conversations', () => {
  it("stores a turn's new facts up to the quota and the rest of the turn, counting the facts left out", async () => {
    await save('learning', 'Dee', 'lives_in', 'Oslo');
    await save('learning', 'Dee', 'likes', 'tea');
    const { turns } = await writer.store([
      learned('learning', [
        ['plays', 'chess'],
        ['likes', 'jazz'],
        ['owns', 'a boat'],
      ]),
    ]);
    expect(turns[0]).toMatchObject({ duplicate: false, factsOverQuota: 2 });
    expect(turns[0]!.factIds).toHaveLength(1);
    expect(turns[0]!.episodeId).toBeDefined();
    expect(await currentObjects('learning')).toEqual(['Oslo', 'chess', 'tea']);
    // At the quota, a fact that replaces a current one and a repeated one are still learned.
    const next = await writer.store([
      learned('learning', [
        ['lives_in', 'Porto'],
        ['likes', 'tea'],
        ['likes', 'opera'],
      ]),
    ]);
    expect(next.turns[0]).toMatchObject({ factsOverQuota: 1 });
    expect(next.turns[0]!.supersededIds).toHaveLength(1);
    expect(await currentObjects('learning')).toEqual(['Porto', 'chess', 'tea']);
    // And a save finds no room either.
    expect(await rejectionOf(save('learning', 'Dee', 'visited', 'Riga'))).toMatchObject({ code: 'QUOTA_EXCEEDED' });
  });

  it("follows the turn's tier, and with saves and batches of several tenants racing lets exactly each quota through", async () => {
    const batches = Array.from({ length: 4 }, (_, b) =>
      writer.store([
        learned(
          'race-pro',
          [
            ['visited', `city ${b}a`],
            ['visited', `city ${b}b`],
          ],
          'pro',
        ),
        learned('race-default', [['visited', `town ${b}`]]),
      ]),
    );
    const saves = Array.from({ length: 4 }, (_, i) =>
      save('race-pro', 'Dee', 'visited', `port ${i}`, 'pro').catch((err: { code?: string }) => err.code),
    );
    await Promise.all([...batches, ...saves]);
    expect(await currentObjects('race-pro')).toHaveLength(6);
    expect(await currentObjects('race-default')).toHaveLength(3);
  });
});
