import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { MEMORY_DEAD_LETTER_STREAM, MemoryDeadLetter, memoryIngestSubject } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import { connectNats, createLogger, type GrpcClientHandle, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryServer } from './server.js';
import { ingestionDrained } from './test-support/ingestion-drained.js';
import { startTestMemory } from './test-support/test-memory.js';
import { startFakeModel, type ChatRequestSeen } from './test-support/fake-model.js';

const logger = createLogger({ service: 'memory-knowledge-test', level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
let server: MemoryServer;
let client: GrpcClientHandle<memoryV1.MemoryServiceClient>;
let nc: NatsConnection;
let db: pg.Pool;
let model: Awaited<ReturnType<typeof startFakeModel>>;
// A private NATS: every memory server consumes the one ingestion queue, which suites must not share.
let nats: NatsServerHandle;

/** Extraction answers by a marker word in the turn's text. */
const extractions = new Map<string, string>();
const fact = (subject: string, predicate: string, object: string, extra: Record<string, unknown> = {}) => ({
  subject,
  predicate,
  object,
  confidence: 0.9,
  sourceSeq: 1,
  ...extra,
});

function extractionFor(text: string): string {
  for (const [marker, json] of extractions) if (text.includes(marker)) return json;
  return JSON.stringify({ episodeSummary: '' });
}

function answer(request: ChatRequestSeen): string | number {
  if (request.schemaName === 'memory_extraction') return extractionFor(request.user);
  if (request.schemaName === 'memory_extraction_batch') {
    // Several turns in one request: each "### TURN n" section answered by its own marker.
    const sections = request.user.split(/^### (TURN \d+)$/m).slice(1);
    const turns = [];
    for (let i = 0; i < sections.length; i += 2)
      turns.push({ turn: sections[i], ...(JSON.parse(extractionFor(sections[i + 1] ?? '')) as object) });
    return JSON.stringify({ turns });
  }
  if (request.schemaName === 'memory_answer') {
    const lines = request.user.split('\n').filter((l) => /^[0-9a-f-]{36}: /.test(l));
    const hit = lines.find((l) => l.includes('Berlin'));
    if (!hit) return JSON.stringify({ answer: 'Memory holds nothing on that.', answered: false, citedIds: [] });
    return JSON.stringify({
      answer: 'Alice lives in Berlin.',
      answered: true,
      citedIds: [hit.slice(0, 36), 'not-a-real-id'],
    });
  }
  return 500;
}

beforeAll(async () => {
  nats = await startNatsServer();
  model = await startFakeModel(answer);
  const url = await createSuiteDatabase('memory_knowledge');
  ({ server, client } = await startTestMemory(
    { databaseUrl: url, natsUrl: nats.url },
    {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'test',
      MEMORY_INGEST_MAX_DELIVERIES: '2',
      MEMORY_INGEST_RETRY_BASE_MS: '50',
      MEMORY_EXTRACTION_ATTEMPTS: '2',
      MEMORY_LAG_POLL_MS: '100',
    },
    logger,
    5_000,
  ));
  nc = await connectNats({ servers: nats.url, name: 'memory-knowledge-test', logger });
  db = new pg.Pool({ connectionString: url, options: '-c search_path=memory' });
}, 60_000);

afterAll(async () => {
  client.close();
  await server.stop();
  await nc.drain();
  await db.end();
  await model.close();
  await nats.stop();
});

let published = 0;
async function publishTurn(
  tenantId: string,
  runId: string,
  text: string,
  options: { conversationId?: string; collection?: string; msgId?: string } = {},
): Promise<void> {
  const turn = {
    type: 'memory.turn_finished',
    tenantId,
    conversationId: options.conversationId ?? 'conv-1',
    runId,
    ...(options.collection ? { collection: options.collection } : {}),
    firstSeq: 1,
    lastSeq: 2,
    messages: [
      { seq: 1, message: { role: 'user', content: text } },
      { seq: 2, message: { role: 'assistant', content: 'Noted.' } },
    ],
    finishedAt: new Date().toISOString(),
  };
  await jetstream(nc).publish(memoryIngestSubject(tenantId), JSON.stringify(turn), {
    msgID: options.msgId ?? `test-${(published += 1)}-${runId}`,
  });
}

const listFacts = (tenantId: string, extra: Partial<memoryV1.ListFactsRequest> = {}) =>
  client.rpc.listFacts({
    tenantId,
    collectionPrefix: '',
    subject: '',
    includeSuperseded: false,
    pageSize: 0,
    pageToken: '',
    ...extra,
  });
const recall = (tenantId: string, query: string, extra: Partial<memoryV1.RecallRequest> = {}) =>
  client.rpc.recall({
    tenantId,
    query,
    collectionPrefix: '',
    limit: 0,
    tokenBudget: 0,
    conversationId: '',
    includeEpisodes: true,
    ...extra,
  });

describe('ingestion', () => {
  it('stores a turn once, even when it is delivered again after the duplicate window', async () => {
    extractions.set(
      'marker-once',
      JSON.stringify({
        facts: [fact('user', 'owns', 'a red bicycle')],
        episodeSummary: 'The user mentioned a red bicycle.',
        topics: ['bikes'],
      }),
    );
    await publishTurn('acme', 'run-once', 'marker-once: I own a red bicycle');
    await ingestionDrained(nc);
    await publishTurn('acme', 'run-once', 'marker-once: I own a red bicycle');
    await ingestionDrained(nc);
    const facts = (await listFacts('acme', { subject: 'user' })).facts.filter((f) => f.object === 'a red bicycle');
    expect(facts).toHaveLength(1);
    expect(facts[0]!.source).toEqual({
      origin: 'extracted',
      conversationId: 'conv-1',
      runId: 'run-once',
      messageSeq: 1,
    });
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM episodes WHERE tenant_id = 'acme' AND run_id = 'run-once'`,
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('stores a summary repeated in another conversation once, counting it and linking both runs, a redelivery counted once', async () => {
    extractions.set(
      'marker-faq-hours',
      JSON.stringify({ episodeSummary: 'The user asked for the opening hours.', topics: ['faq'] }),
    );
    extractions.set(
      'marker-faq-again',
      JSON.stringify({ episodeSummary: '  the user asked for the OPENING hours. ', topics: ['faq'] }),
    );
    await publishTurn('acme', 'run-faq-1', 'marker-faq-hours: when are you open?', { conversationId: 'conv-faq-1' });
    await ingestionDrained(nc);
    await publishTurn('acme', 'run-faq-2', 'marker-faq-again: opening hours?', { conversationId: 'conv-faq-2' });
    await publishTurn('acme', 'run-faq-3', 'marker-faq-hours: when are you open?', {
      conversationId: 'conv-faq-3',
      collection: 'user:faq',
    });
    await ingestionDrained(nc);
    await publishTurn('acme', 'run-faq-2', 'marker-faq-again: opening hours?', { conversationId: 'conv-faq-2' });
    await ingestionDrained(nc);
    const { rows } = await db.query(
      `SELECT e.collection, e.summary, e.occurrences, e.conversation_id,
         ARRAY(SELECT r.run_id FROM ingested_runs r WHERE r.tenant_id = e.tenant_id AND r.episode_id = e.episode_id ORDER BY r.run_id) AS runs
       FROM episodes e WHERE e.tenant_id = 'acme' AND e.kind = 'turn' AND e.summary ILIKE '%opening hours%' ORDER BY e.collection`,
    );
    expect(rows).toEqual([
      {
        collection: 'default',
        summary: 'The user asked for the opening hours.',
        occurrences: 2,
        conversation_id: 'conv-faq-1',
        runs: ['run-faq-1', 'run-faq-2'],
      },
      {
        collection: 'user:faq',
        summary: 'The user asked for the opening hours.',
        occurrences: 1,
        conversation_id: 'conv-faq-3',
        runs: ['run-faq-3'],
      },
    ]);
  });

  it('supersedes a single-valued fact: Paris, then Berlin; history keeps Paris with its end', async () => {
    extractions.set(
      'marker-paris',
      JSON.stringify({ facts: [fact('Alice', 'lives in', 'Paris', { singleValued: true })] }),
    );
    extractions.set(
      'marker-berlin',
      JSON.stringify({
        facts: [fact('Alice', 'lives_in', 'Berlin')],
        episodeSummary: 'Alice moved from Paris to Berlin.',
      }),
    );
    await publishTurn('acme', 'run-paris', 'marker-paris: Alice lives in Paris');
    await ingestionDrained(nc);
    await publishTurn('acme', 'run-berlin', 'marker-berlin: Alice moved from Paris to Berlin');
    await ingestionDrained(nc);
    const current = (await listFacts('acme', { subject: 'alice' })).facts;
    expect(current.map((f) => `${f.predicate} ${f.object}`)).toEqual(['lives_in Berlin']);
    const all = (await listFacts('acme', { subject: 'Alice', includeSuperseded: true })).facts;
    const paris = all.find((f) => f.object === 'Paris')!;
    expect(paris.current).toBe(false);
    expect(paris.validTo).toBeInstanceOf(Date);
    expect(paris.supersededBy).toBe(current[0]!.factId);
    // The extractor was shown Paris as a candidate the Berlin turn might supersede.
    expect(
      model.seen.some(
        (r) => r.user.includes('marker-berlin') && r.user.includes(`${paris.factId}: Alice lives_in Paris`),
      ),
    ).toBe(true);

    const recalled = await recall('acme', 'Where does Alice live?');
    expect(recalled.searchMode).toBe('keyword');
    expect(recalled.items[0]!.fact?.object).toBe('Berlin');
    expect(recalled.items[0]!.why).toMatch(/full text rank 1/);
    expect(recalled.items.some((i) => i.fact?.object === 'Paris')).toBe(false);

    const answered = await client.rpc.queryMemory({
      tenantId: 'acme',
      question: 'Where does Alice live?',
      collectionPrefix: '',
      limit: 0,
    });
    expect(answered.answered).toBe(true);
    expect(answered.answer).toMatch(/Berlin/);
    // Only ids it was shown survive as citations.
    expect(answered.citedFactIds).toEqual([current[0]!.factId]);
  });

  it('stores entities with their facets, those only seen in tool results marked as such', async () => {
    extractions.set(
      'marker-entities',
      JSON.stringify({
        entities: [
          { name: 'Lufthansa', type: 'organisation', facets: { industry: 'airline' } },
          { name: 'LH 123', type: 'flight', facets: { from: 'FRA', to: 'JFK' }, fromTool: true },
        ],
        facts: [],
      }),
    );
    await publishTurn('acme', 'run-entities', 'marker-entities: book me on Lufthansa');
    await ingestionDrained(nc);
    const { rows } = await db.query<{
      name: string;
      entity_type: string;
      facets: Record<string, unknown>;
      origin: string;
    }>(`SELECT name, entity_type, facets, origin FROM entities WHERE tenant_id = 'acme' ORDER BY name`);
    expect(rows).toEqual([
      { name: 'LH 123', entity_type: 'flight', facets: { from: 'FRA', to: 'JFK' }, origin: 'tool' },
      { name: 'Lufthansa', entity_type: 'organisation', facets: { industry: 'airline' }, origin: 'conversation' },
    ]);
  });

  it("honours the model's supersedes judgement across predicates", async () => {
    extractions.set('marker-vegan-1', JSON.stringify({ facts: [fact('user', 'eats', 'meat')] }));
    await publishTurn('acme', 'run-meat', 'marker-vegan-1: I eat meat');
    await ingestionDrained(nc);
    const meat = (await listFacts('acme', { subject: 'user' })).facts.find((f) => f.object === 'meat')!;
    extractions.set(
      'marker-vegan-2',
      JSON.stringify({ facts: [fact('user', 'is', 'vegan', { supersedes: [meat.factId] })] }),
    );
    await publishTurn('acme', 'run-vegan', 'marker-vegan-2: I no longer eat meat, I am vegan');
    await ingestionDrained(nc);
    const now = (await client.rpc.getFact({ tenantId: 'acme', factId: meat.factId })).fact!;
    expect(now.current).toBe(false);
  });

  it('stores turns that arrive together as one batch: supersession in order, a run twice stored once, entities merged, a failing turn alone', async () => {
    extractions.set(
      'marker-batch-rome',
      JSON.stringify({
        facts: [fact('Bea', 'lives_in', 'Rome')],
        episodeSummary: 'Bea lives in Rome.',
        entities: [{ name: 'Oslo', type: 'place', facets: { country: 'NO' } }],
      }),
    );
    extractions.set(
      'marker-batch-oslo',
      JSON.stringify({ facts: [fact('Bea', 'lives_in', 'Oslo')], episodeSummary: 'Bea moved to Oslo.' }),
    );
    extractions.set('marker-batch-bad', JSON.stringify({ facts: [{ subject: 'Bea', predicate: 'likes' }] }));
    extractions.set(
      'marker-batch-tool',
      JSON.stringify({
        entities: [{ name: 'oslo', type: 'city', facets: { population: 700000 }, fromTool: true }],
        facts: [],
      }),
    );
    await publishTurn('acme', 'run-batch-rome', 'marker-batch-rome: Bea lives in Rome');
    await publishTurn('acme', 'run-batch-oslo', 'marker-batch-oslo: Bea moved to Oslo');
    await publishTurn('acme', 'run-batch-oslo', 'marker-batch-oslo: Bea moved to Oslo');
    await publishTurn('acme', 'run-batch-bad', 'marker-batch-bad: Bea likes');
    await publishTurn('acme', 'run-batch-tool', 'marker-batch-tool: how big is oslo');
    await ingestionDrained(nc);
    const bea = (await listFacts('acme', { subject: 'Bea', includeSuperseded: true })).facts;
    const oslo = bea.filter((f) => f.object === 'Oslo');
    expect(oslo).toHaveLength(1);
    expect(oslo[0]!.current).toBe(true);
    expect(bea.find((f) => f.object === 'Rome')).toMatchObject({ current: false, supersededBy: oslo[0]!.factId });
    const { rows: runs } = await db.query<{ run_id: string; episodes: number }>(
      `SELECT r.run_id, (SELECT count(*) FROM episodes e WHERE e.tenant_id = r.tenant_id AND e.run_id = r.run_id)::int AS episodes
       FROM ingested_runs r WHERE r.tenant_id = 'acme' AND r.run_id LIKE 'run-batch-%' ORDER BY r.run_id`,
    );
    expect(runs).toEqual([
      { run_id: 'run-batch-oslo', episodes: 1 },
      { run_id: 'run-batch-rome', episodes: 1 },
      { run_id: 'run-batch-tool', episodes: 0 },
    ]);
    const { rows: entities } = await db.query(
      `SELECT name, entity_type, facets, origin FROM entities WHERE tenant_id = 'acme' AND lower(name) = 'oslo'`,
    );
    expect(entities).toEqual([
      { name: 'Oslo', entity_type: 'city', facets: { country: 'NO', population: 700000 }, origin: 'conversation' },
    ]);
    expect((await lastDeadLetter('run-batch-bad')).reason).toBe('invalid_extraction');
  });

  it('dead-letters a turn whose extraction stays invalid, storing nothing of it', async () => {
    extractions.set('marker-broken', JSON.stringify({ facts: [{ subject: 'user', predicate: 'likes' }] }));
    await publishTurn('acme', 'run-broken', 'marker-broken: I like tea');
    await ingestionDrained(nc);
    const letter = await lastDeadLetter('run-broken');
    expect(letter.reason).toBe('invalid_extraction');
    expect(letter.deliveries).toBe(2);
    expect(letter.detail).toMatch(/object/);
    const { rows } = await db.query(
      `SELECT (SELECT count(*) FROM facts WHERE run_id = 'run-broken')::int AS facts, (SELECT count(*) FROM ingested_runs WHERE run_id = 'run-broken')::int AS runs`,
    );
    expect(rows[0]).toEqual({ facts: 0, runs: 0 });
  });

  it('dead-letters a fact attached to a message outside the turn (cross-checked, not only schema-checked)', async () => {
    extractions.set('marker-seq', JSON.stringify({ facts: [fact('user', 'likes', 'tea', { sourceSeq: 99 })] }));
    await publishTurn('acme', 'run-seq', 'marker-seq: I like tea');
    await ingestionDrained(nc);
    expect((await lastDeadLetter('run-seq')).detail).toMatch(/sourceSeq 99/);
  });

  it('dead-letters a malformed message at once with its reason', async () => {
    await jetstream(nc).publish(memoryIngestSubject('acme'), '{"type":"memory.turn_finished","tenantId":"acme"}', {
      msgID: 'malformed-1',
    });
    await ingestionDrained(nc);
    const jsm = await jetstreamManager(nc);
    const last = await jsm.streams.getMessage(MEMORY_DEAD_LETTER_STREAM, {
      last_by_subj: 'platform.memory.dead.acme.turn',
    });
    const letter = MemoryDeadLetter.parse(last?.json());
    expect(letter.reason).toBe('malformed_message');
    expect(letter.deliveries).toBe(1);
  });

  it("clears the run's working memory when its turn is ingested", async () => {
    await client.rpc.setWorkingMemory({
      tenantId: 'acme',
      runId: 'run-wm',
      conversationId: 'conv-1',
      entries: [{ key: 'order_id', valueJson: '"A-17"', updatedAt: undefined }],
    });
    expect(
      (await client.rpc.getWorkingMemory({ tenantId: 'acme', runId: 'run-wm', keys: [] })).entries.map(
        (e) => e.valueJson,
      ),
    ).toEqual(['"A-17"']);
    await publishTurn('acme', 'run-wm', 'nothing to remember');
    await ingestionDrained(nc);
    expect((await client.rpc.getWorkingMemory({ tenantId: 'acme', runId: 'run-wm', keys: [] })).entries).toEqual([]);
  });
});

async function lastDeadLetter(runId: string): Promise<MemoryDeadLetter> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(MEMORY_DEAD_LETTER_STREAM);
  for (let seq = info.state.last_seq; seq >= info.state.first_seq && seq > 0; seq--) {
    const message = await jsm.streams.getMessage(MEMORY_DEAD_LETTER_STREAM, { seq }).catch(() => null);
    const letter = message ? MemoryDeadLetter.safeParse(message.json()) : undefined;
    if (letter?.success && letter.data.runId === runId) return letter.data;
  }
  throw new Error(`no dead letter for ${runId}`);
}

describe('collections, tenants and forgetting', () => {
  beforeAll(async () => {
    const save = (collection: string, subject: string, object: string) =>
      client.rpc.saveFact({
        tenantId: 'acme',
        collection,
        subject,
        predicate: 'likes',
        object,
        kind: '',
        confidence: 0,
        conversationId: '',
        runId: '',
        messageSeq: 0,
      });
    await save('team:eng:alice', 'Bob', 'rust');
    await save('team:eng', 'Bob', 'go');
    await save('team:engineering', 'Bob', 'java');
  });

  it('queries a collection prefix on whole segments', async () => {
    const facts = (await listFacts('acme', { collectionPrefix: 'team:eng', subject: 'bob' })).facts;
    expect(facts.map((f) => f.object).sort()).toEqual(['go', 'rust']);
    const recalled = await recall('acme', 'what does Bob like', { collectionPrefix: 'team:eng' });
    expect(recalled.items.map((i) => i.fact?.object).sort()).toEqual(['go', 'rust']);
    await expect(listFacts('acme', { collectionPrefix: 'team:' })).rejects.toMatchObject({
      code: 'INVALID_COLLECTION',
    });
  });

  it('pages facts with a token', async () => {
    const first = await listFacts('acme', { pageSize: 2 });
    expect(first.facts).toHaveLength(2);
    const second = await listFacts('acme', { pageSize: 2, pageToken: first.nextPageToken });
    expect(second.facts.map((f) => f.factId)).not.toContain(first.facts[0]!.factId);
    await expect(listFacts('acme', { pageToken: 'garbage' })).rejects.toMatchObject({ code: 'INVALID_PAGE_TOKEN' });
  });

  it('shows another tenant nothing on every read path, and lets it change nothing', async () => {
    const acmeFact = (await listFacts('acme', { subject: 'bob' })).facts[0]!;
    expect((await listFacts('globex')).facts).toEqual([]);
    expect((await listFacts('globex', { includeSuperseded: true, subject: 'Alice' })).facts).toEqual([]);
    await expect(client.rpc.getFact({ tenantId: 'globex', factId: acmeFact.factId })).rejects.toMatchObject({
      kind: 'not_found',
    });
    const recalled = await recall('globex', 'what does Bob like, where does Alice live');
    expect(recalled.items).toEqual([]);
    const answered = await client.rpc.queryMemory({
      tenantId: 'globex',
      question: 'Where does Alice live?',
      collectionPrefix: '',
      limit: 0,
    });
    expect(answered).toMatchObject({ answered: false, citedFactIds: [] });
    await expect(
      client.rpc.deleteFact({ tenantId: 'globex', factId: acmeFact.factId, actor: 'mallory', reason: '' }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    expect(
      (
        await client.rpc.forgetSubject({
          tenantId: 'globex',
          subject: 'Bob',
          collectionPrefix: '',
          actor: 'mallory',
          reason: '',
        })
      ).factsDeleted,
    ).toBe(0);
    await client.rpc.setWorkingMemory({
      tenantId: 'acme',
      runId: 'run-shared',
      conversationId: '',
      entries: [{ key: 'k', valueJson: '1', updatedAt: undefined }],
    });
    expect((await client.rpc.getWorkingMemory({ tenantId: 'globex', runId: 'run-shared', keys: [] })).entries).toEqual(
      [],
    );
    expect((await client.rpc.clearWorkingMemory({ tenantId: 'globex', runId: 'run-shared' })).cleared).toBe(0);
    expect((await client.rpc.getFact({ tenantId: 'acme', factId: acmeFact.factId })).fact?.factId).toBe(
      acmeFact.factId,
    );
  });

  it("deletes one fact and forgets a subject for good, audited without the subject's name", async () => {
    const [one, ...rest] = (await listFacts('acme', { subject: 'bob' })).facts;
    const deleted = await client.rpc.deleteFact({
      tenantId: 'acme',
      factId: one!.factId,
      actor: 'alice',
      reason: 'wrong',
    });
    expect(deleted.auditId).toMatch(/-/);
    await expect(client.rpc.getFact({ tenantId: 'acme', factId: one!.factId })).rejects.toMatchObject({
      kind: 'not_found',
    });
    const forgot = await client.rpc.forgetSubject({
      tenantId: 'acme',
      subject: 'bob',
      collectionPrefix: '',
      actor: 'alice',
      reason: 'privacy request',
    });
    expect(forgot.factsDeleted).toBe(rest.length);
    expect((await listFacts('acme', { subject: 'Bob', includeSuperseded: true })).facts).toEqual([]);
    expect((await recall('acme', 'Bob likes rust go java')).items.some((i) => i.fact?.subject === 'Bob')).toBe(false);
    expect(
      (await db.query(`SELECT term FROM recall_terms WHERE tenant_id = 'acme' AND term IN ('bob', 'rust', 'java')`))
        .rows,
    ).toEqual([]);
    const { rows } = await db.query<{ action: string; target: string; actor: string }>(
      `SELECT action, target, actor FROM audit_log WHERE tenant_id = 'acme' ORDER BY at`,
    );
    expect(rows.map((r) => r.action)).toEqual(['delete_fact', 'forget_subject']);
    expect(rows.every((r) => !/bob/i.test(r.target))).toBe(true);
  });

  it('forgets the episodes that name the subject as a whole word, not those where it is part of a word', async () => {
    const episode = (summary: string) =>
      db.query<{ episode_id: string }>(
        `INSERT INTO episodes (tenant_id, collection, conversation_id, kind, summary, first_seq, last_seq) VALUES ('acme', 'user:ann', 'conv-ann', 'turn', $1, 1, 2) RETURNING episode_id`,
        [summary],
      );
    await episode('Ann booked a train to Lyon.');
    await episode("The user asked about ann's birthday party.");
    const anna = (await episode('Anna prefers aisle seats; Joanne and Annabel came along.')).rows[0]!.episode_id;
    const forgot = await client.rpc.forgetSubject({
      tenantId: 'acme',
      subject: 'Ann',
      collectionPrefix: '',
      actor: 'alice',
      reason: 'privacy request',
    });
    expect(forgot.episodesDeleted).toBe(2);
    const { rows } = await db.query<{ episode_id: string }>(
      `SELECT episode_id FROM episodes WHERE tenant_id = 'acme' AND conversation_id = 'conv-ann'`,
    );
    expect(rows.map((r) => r.episode_id)).toEqual([anna]);
    // The trigram vocabulary keeps no trace of the forgotten name, only of the words still in use.
    const terms = await db.query<{ term: string }>(
      `SELECT term FROM recall_terms WHERE tenant_id = 'acme' AND term IN ('ann', 'anna', 'lyon')`,
    );
    expect(terms.rows.map((r) => r.term)).toEqual(['anna']);
  });

  it('refuses bad input with typed errors', async () => {
    await expect(recall('acme', '')).rejects.toMatchObject({ code: 'INVALID_QUERY' });
    await expect(recall('bad tenant', 'x')).rejects.toMatchObject({ code: 'INVALID_TENANT_ID' });
    await expect(
      client.rpc.setWorkingMemory({
        tenantId: 'acme',
        runId: 'r',
        conversationId: '',
        entries: [{ key: 'k', valueJson: '{nope', updatedAt: undefined }],
      }),
    ).rejects.toMatchObject({ code: 'INVALID_VALUE' });
    await expect(client.rpc.getFact({ tenantId: 'acme', factId: 'not-a-uuid' })).rejects.toMatchObject({
      code: 'FACT_NOT_FOUND',
    });
  });

  it('reports the search it runs: keyword when no embeddings model is set', async () => {
    expect(server.search).toEqual({
      mode: 'keyword',
      vectors: { enabled: false, reason: 'MEMORY_EMBEDDING_MODEL is not set' },
    });
    expect(await client.rpc.describeMemory({})).toMatchObject({
      searchMode: 'keyword',
      vectorsEnabled: false,
      vectorsReason: 'MEMORY_EMBEDDING_MODEL is not set',
      ingestLag: 0,
    });
  });
});
