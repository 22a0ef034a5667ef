import type { memoryV1 } from '@platform/proto';
import { createLogger, PlatformError, type GrpcClientHandle } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryServer } from './server.js';
import { startTestMemory } from './test-support/test-memory.js';

// Issue 34, item 9: one tenant saved 400 facts of maximum size. The current facts a tenant holds
// are a quota of its tier (TENANT_TIERS `facts`), checked in the save's transaction.
const logger = createLogger({ service: 'memory-fact-quota-test', level: 'silent' });
let nats: NatsServerHandle;
let server: MemoryServer;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;

beforeAll(async () => {
  nats = await startNatsServer();
  const url = await createSuiteDatabase('memory_fact_quota', { pgvector: false });
  ({ server, client } = await startTestMemory(
    { databaseUrl: url, natsUrl: nats.url },
    { MEMORY_TOOLS_ENABLED: 'false', TENANT_TIERS: JSON.stringify({ default: { facts: 3 }, pro: { facts: 6 } }) },
    logger,
  ));
}, 60_000);

afterAll(async () => {
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
