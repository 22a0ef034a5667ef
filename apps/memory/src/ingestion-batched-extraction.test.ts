import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { MEMORY_DEAD_LETTER_STREAM, MemoryDeadLetter, memoryIngestSubject } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureIngestStreams } from './ingestion/ingest-consumer.js';
import { ingestionDrained } from './test-support/ingestion-drained.js';
import { startTestMemory } from './test-support/test-memory.js';
import { SIM_API_KEY, startLlmSim } from './test-support/llm-sim.js';

// Several turns of one tenant (and collection) extracted with one model request, against llm-sim's
// deterministic extraction model at the wire. Each test publishes its turns first and only then
// starts memory, so they arrive as one ingestion batch.

const logger = createLogger({
  service: 'memory-batched-extraction-test',
  level: process.env['TEST_LOG_LEVEL'] ?? 'silent',
});
let sim: Awaited<ReturnType<typeof startLlmSim>>;
let nats: NatsServerHandle;
let nc: NatsConnection;
let databaseUrl: string;

beforeAll(async () => {
  [sim, nats, databaseUrl] = await Promise.all([
    startLlmSim(),
    startNatsServer(),
    createSuiteDatabase('memory_batched_extraction'),
  ]);
  nc = await connectNats({ servers: nats.url, name: 'memory-batched-extraction-test', logger });
  await ensureIngestStreams(nc, { maxAgeMs: 3_600_000, deadLetterMaxAgeMs: 3_600_000 });
}, 60_000);
afterAll(async () => {
  await nc.drain();
  await sim.stop();
  await nats.stop();
});
beforeEach(() => fetch(`${sim.url}/_sim/reset`, { method: 'POST' }));

interface TurnSpec {
  tenantId: string;
  runId: string;
  /** The user's message; it gets `seq`, the assistant's answer `seq + 1`. */
  text: string;
  seq?: number;
  conversationId?: string;
  collection?: string;
}

let published = 0;
async function publish(turns: readonly TurnSpec[]): Promise<void> {
  for (const t of turns) {
    const seq = t.seq ?? 1;
    const body = {
      type: 'memory.turn_finished',
      tenantId: t.tenantId,
      conversationId: t.conversationId ?? `conv-${t.runId}`,
      runId: t.runId,
      ...(t.collection ? { collection: t.collection } : {}),
      firstSeq: seq,
      lastSeq: seq + 1,
      messages: [
        { seq, message: { role: 'user', content: t.text } },
        { seq: seq + 1, message: { role: 'assistant', content: 'Noted.' } },
      ],
      finishedAt: new Date().toISOString(),
    };
    await jetstream(nc).publish(memoryIngestSubject(t.tenantId), JSON.stringify(body), {
      msgID: `batched-${(published += 1)}-${t.runId}`,
    });
  }
}

/** Publishes the turns, then runs memory (with `settings`) until it has consumed them all; returns what the facts say. */
async function ingest(
  turns: readonly TurnSpec[],
  settings: Record<string, string> = {},
): Promise<{ facts(tenantId: string, subject: string): Promise<memoryV1.Fact[]> }> {
  await publish(turns);
  const { server, client } = await startTestMemory(
    { databaseUrl, natsUrl: nats.url },
    {
      OPENAI_BASE_URL: sim.baseURL,
      OPENAI_API_KEY: SIM_API_KEY,
      MEMORY_EXTRACTION_MODEL: 'sim-1',
      MEMORY_TOOLS_ENABLED: 'false',
      MEMORY_INGEST_MAX_DELIVERIES: '2',
      MEMORY_INGEST_RETRY_BASE_MS: '50',
      MEMORY_INGEST_BATCH_WAIT_MS: '300',
      MEMORY_EXTRACTION_ATTEMPTS: '2',
      ...settings,
    },
    logger,
  );
  try {
    await ingestionDrained(nc);
    const found = new Map<string, memoryV1.Fact[]>();
    for (const t of turns) {
      const all = await client.rpc.listFacts({
        tenantId: t.tenantId,
        collectionPrefix: '',
        subject: '',
        includeSuperseded: true,
        pageSize: 0,
        pageToken: '',
      });
      found.set(t.tenantId, all.facts);
    }
    return { facts: async (tenantId, subject) => (found.get(tenantId) ?? []).filter((f) => f.subject === subject) };
  } finally {
    client.close();
    await server.stop();
  }
}

interface SimRequest {
  structuredReply: string | null;
  body: { messages: { role: string; content: string }[] };
}
const simStats = async () =>
  (
    (await (await fetch(`${sim.url}/_sim/stats`)).json()) as {
      requests: Record<string, { requests: number } | undefined>;
    }
  ).requests;
const simRequests = async () =>
  ((await (await fetch(`${sim.url}/_sim/requests`)).json()) as { requests: SimRequest[] }).requests;
const requestsOf = async (kind: string) => (await simStats())[kind]?.requests ?? 0;
const userText = (request: SimRequest) =>
  request.body.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');

async function deadLetterOf(runId: string): Promise<MemoryDeadLetter | undefined> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(MEMORY_DEAD_LETTER_STREAM);
  for (let seq = info.state.last_seq; seq >= info.state.first_seq && seq > 0; seq--) {
    const message = await jsm.streams.getMessage(MEMORY_DEAD_LETTER_STREAM, { seq }).catch(() => null);
    const letter = message ? MemoryDeadLetter.safeParse(message.json()) : undefined;
    if (letter?.success && letter.data.runId === runId) return letter.data;
  }
  return undefined;
}

describe('batched extraction', () => {
  it("extracts several turns of one tenant with one request, each fact with its own turn's provenance", async () => {
    const memory = await ingest([
      { tenantId: 'acme', runId: 'run-one-a', text: 'Alice lives in Oslo.', seq: 1 },
      { tenantId: 'acme', runId: 'run-one-b', text: 'Bruno works at Initech.', seq: 5 },
      { tenantId: 'acme', runId: 'run-one-c', text: 'Carla lives in Lima.', seq: 3 },
    ]);
    expect(await requestsOf('memory_extraction_batch')).toBe(1);
    expect(await requestsOf('memory_extraction')).toBe(0);
    expect(await memory.facts('acme', 'Alice')).toMatchObject([
      {
        predicate: 'lives_in',
        object: 'Oslo',
        current: true,
        source: { runId: 'run-one-a', conversationId: 'conv-run-one-a', messageSeq: 1 },
      },
    ]);
    expect(await memory.facts('acme', 'Bruno')).toMatchObject([
      {
        predicate: 'works_at',
        object: 'Initech',
        source: { runId: 'run-one-b', conversationId: 'conv-run-one-b', messageSeq: 5 },
      },
    ]);
    expect(await memory.facts('acme', 'Carla')).toMatchObject([
      {
        predicate: 'lives_in',
        object: 'Lima',
        source: { runId: 'run-one-c', conversationId: 'conv-run-one-c', messageSeq: 3 },
      },
    ]);
    // The request showed each turn in its own section.
    const [request] = (await simRequests()).filter((r) => r.structuredReply === 'memory_extraction_batch');
    expect(userText(request!).match(/^### TURN \d+$/gm)).toEqual(['### TURN 1', '### TURN 2', '### TURN 3']);
  });

  it('never puts two tenants, or two collections of one tenant, in one request', async () => {
    const memory = await ingest([
      { tenantId: 'acme', runId: 'run-mix-a1', text: 'Dora lives in Zurich.' },
      { tenantId: 'globex', runId: 'run-mix-g1', text: 'Emil lives in Quito.' },
      { tenantId: 'acme', runId: 'run-mix-a2', text: 'Fritz lives in Zagreb.' },
      { tenantId: 'globex', runId: 'run-mix-g2', text: 'Greta lives in Quebec.' },
      { tenantId: 'acme', runId: 'run-mix-a3', text: 'Hanna lives in Zaragoza.', collection: 'user:hanna' },
    ]);
    expect(await requestsOf('memory_extraction_batch')).toBe(2);
    expect(await requestsOf('memory_extraction')).toBe(1);
    const texts = (await simRequests()).filter((r) => r.structuredReply?.startsWith('memory_extraction')).map(userText);
    expect(
      texts.map((t) => ['Zurich', 'Zagreb', 'Zaragoza', 'Quito', 'Quebec'].filter((w) => t.includes(w))).sort(),
    ).toEqual([['Quito', 'Quebec'], ['Zaragoza'], ['Zurich', 'Zagreb']]);
    expect(await memory.facts('acme', 'Dora')).toMatchObject([{ object: 'Zurich' }]);
    expect(await memory.facts('acme', 'Emil')).toEqual([]);
    expect(await memory.facts('globex', 'Emil')).toMatchObject([{ object: 'Quito' }]);
    expect(await memory.facts('globex', 'Greta')).toMatchObject([{ object: 'Quebec' }]);
    expect(await memory.facts('acme', 'Hanna')).toMatchObject([{ object: 'Zaragoza', collection: 'user:hanna' }]);
  });

  it('extracts alone a turn whose part of the answer is invalid or missing; the others are stored from the shared answer, once', async () => {
    const memory = await ingest([
      { tenantId: 'acme', runId: 'run-part-a', text: 'Ida lives in Bergen.' },
      { tenantId: 'acme', runId: 'run-part-b', text: 'Jonas lives in Turku. [memory-sim:invalid-in-batch]' },
      { tenantId: 'acme', runId: 'run-part-c', text: 'Karl lives in Aarhus. [memory-sim:missing-in-batch]' },
      { tenantId: 'acme', runId: 'run-part-d', text: 'Lena lives in Malmo.' },
    ]);
    expect(await requestsOf('memory_extraction_batch')).toBe(1);
    expect(await requestsOf('memory_extraction')).toBe(2);
    const alone = (await simRequests()).filter((r) => r.structuredReply === 'memory_extraction').map(userText);
    expect(alone.map((t) => (t.includes('Turku') ? 'Turku' : t.includes('Aarhus') ? 'Aarhus' : t)).sort()).toEqual([
      'Aarhus',
      'Turku',
    ]);
    for (const [subject, city] of [
      ['Ida', 'Bergen'],
      ['Jonas', 'Turku'],
      ['Karl', 'Aarhus'],
      ['Lena', 'Malmo'],
    ] as const) {
      expect(await memory.facts('acme', subject)).toMatchObject([{ object: city }]);
    }
  });

  it('dead-letters a turn whose part stays invalid when asked alone, and stores the others once', async () => {
    const memory = await ingest([
      { tenantId: 'acme', runId: 'run-bad-a', text: 'Mona lives in Graz.' },
      { tenantId: 'acme', runId: 'run-bad-b', text: 'Nils lives in Linz. [memory-sim:invalid]' },
      { tenantId: 'acme', runId: 'run-bad-c', text: 'Olga lives in Brno.' },
    ]);
    // One shared request; then the bad turn alone, twice per delivery, for two deliveries.
    expect(await requestsOf('memory_extraction_batch')).toBe(1);
    expect(await requestsOf('memory_extraction')).toBe(4);
    const letter = await deadLetterOf('run-bad-b');
    expect(letter).toMatchObject({ reason: 'invalid_extraction', deliveries: 2 });
    expect(await memory.facts('acme', 'Nils')).toEqual([]);
    expect(await memory.facts('acme', 'Mona')).toMatchObject([{ object: 'Graz' }]);
    expect(await memory.facts('acme', 'Olga')).toMatchObject([{ object: 'Brno' }]);
    expect(await deadLetterOf('run-bad-a')).toBeUndefined();
  });

  it('retries an answer that is not JSON, then falls back to one request per turn', async () => {
    const memory = await ingest([
      { tenantId: 'acme', runId: 'run-nojson-a', text: 'Pia lives in Riga.' },
      { tenantId: 'acme', runId: 'run-nojson-b', text: 'Rolf lives in Vilnius. [memory-sim:malformed]' },
      { tenantId: 'acme', runId: 'run-nojson-c', text: 'Sara lives in Tartu.' },
    ]);
    // MEMORY_EXTRACTION_ATTEMPTS shared requests, then each turn alone (the malformed one is dead-lettered).
    expect(await requestsOf('memory_extraction_batch')).toBe(2);
    expect(await memory.facts('acme', 'Pia')).toMatchObject([{ object: 'Riga' }]);
    expect(await memory.facts('acme', 'Sara')).toMatchObject([{ object: 'Tartu' }]);
    expect(await deadLetterOf('run-nojson-b')).toMatchObject({ reason: 'invalid_extraction' });
    const alone = (await simRequests()).filter((r) => r.structuredReply === 'memory_extraction').map(userText);
    expect(alone.some((t) => t.includes('Riga'))).toBe(true);
    expect(alone.some((t) => t.includes('Tartu'))).toBe(true);
  });

  it('keeps one request per turn, in the one-turn shape, with MEMORY_EXTRACTION_TURNS_PER_REQUEST=1', async () => {
    const memory = await ingest(
      [
        { tenantId: 'acme', runId: 'run-single-a', text: 'Tomas lives in Cork.' },
        { tenantId: 'acme', runId: 'run-single-b', text: 'Ulla lives in Galway.' },
      ],
      { MEMORY_EXTRACTION_TURNS_PER_REQUEST: '1' },
    );
    expect(await requestsOf('memory_extraction_batch')).toBe(0);
    expect(await requestsOf('memory_extraction')).toBe(2);
    for (const request of await simRequests()) {
      expect(userText(request)).toMatch(
        /^CURRENT FACTS \(id: subject predicate object\):\n[\s\S]*\n\nTURN:\n\[seq 1\] user: /,
      );
      expect(userText(request)).not.toContain('### TURN');
    }
    expect(await memory.facts('acme', 'Tomas')).toMatchObject([{ object: 'Cork' }]);
    expect(await memory.facts('acme', 'Ulla')).toMatchObject([{ object: 'Galway' }]);
  });
});
