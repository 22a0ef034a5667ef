import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { MEMORY_INGEST_STREAM, memoryIngestSubject } from '@platform/contracts';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, startServiceProcess, type NatsServerHandle, type ServiceProcess } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { INGEST_CONSUMER } from './ingestion/ingest-consumer.js';
import { memoryTlsEnv } from './test-support/test-memory.js';
import { startFakeModel } from './test-support/fake-model.js';

const logger = createLogger({ service: 'memory-crash-test', level: 'silent' });
let nats: NatsServerHandle;
let nc: NatsConnection;
let db: pg.Pool;
let databaseUrl: string;
let model: Awaited<ReturnType<typeof startFakeModel>>;
let openGate: () => void = () => undefined;
const gate = { promise: new Promise<void>((resolve) => (openGate = resolve)) };

beforeAll(async () => {
  [nats, model, databaseUrl] = await Promise.all([
    startNatsServer(),
    startFakeModel(async (request) => {
      if (request.schemaName !== 'memory_extraction' && request.schemaName !== 'memory_extraction_batch') return 500;
      // "hold" turns are answered only once the test opens the gate (their process is killed meanwhile).
      if (request.user.includes('hold:')) await gate.promise;
      const extraction = (text: string) => {
        const city = /live in (\w+)/.exec(text)?.[1] ?? 'nowhere';
        return {
          facts: [{ subject: 'user', predicate: 'lives_in', object: city, confidence: 0.9, sourceSeq: 1 }],
          episodeSummary: `The user said they live in ${city}.`,
        };
      };
      if (request.schemaName === 'memory_extraction') return JSON.stringify(extraction(request.user));
      // Several turns in one request: one entry per "### TURN n" section.
      const sections = request.user.split(/^### (TURN \d+)$/m).slice(1);
      const turns = [];
      for (let i = 0; i < sections.length; i += 2)
        turns.push({ turn: sections[i], ...extraction(sections[i + 1] ?? '') });
      return JSON.stringify({ turns });
    }),
    createSuiteDatabase('memory_crash'),
  ]);
  nc = await connectNats({ servers: nats.url, name: 'memory-crash-test', logger });
  db = new pg.Pool({ connectionString: databaseUrl, options: '-c search_path=memory' });
}, 60_000);

afterAll(async () => {
  await nc.drain();
  await db.end();
  await model.close();
  await nats.stop();
});

async function startMemory(extra: Record<string, string>): Promise<ServiceProcess> {
  return startServiceProcess({
    app: 'memory',
    mode: 'source',
    telemetry: false,
    env: {
      ...process.env,
      ...(await memoryTlsEnv()),
      DATABASE_URL: databaseUrl,
      NATS_URL: nats.url,
      GRPC_PORT: '0',
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'test',
      MEMORY_TOOLS_ENABLED: 'false',
      MEMORY_SESSION_IDLE_MS: '0',
      LOG_LEVEL: 'warn',
      ...extra,
    },
  });
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const counts = async (tenantId = 'acme') =>
  (
    await db.query<{ facts: number; current: number; episodes: number; runs: number }>(
      `SELECT (SELECT count(*) FROM facts WHERE tenant_id = $1)::int AS facts, (SELECT count(*) FROM facts WHERE tenant_id = $1 AND valid_to IS NULL)::int AS current,
              (SELECT count(*) FROM episodes WHERE tenant_id = $1)::int AS episodes, (SELECT count(*) FROM ingested_runs WHERE tenant_id = $1)::int AS runs`,
      [tenantId],
    )
  ).rows[0]!;

async function publish(runId: string, text: string, tenantId = 'acme'): Promise<void> {
  const turn = {
    type: 'memory.turn_finished',
    tenantId,
    conversationId: 'conv-1',
    runId,
    firstSeq: 1,
    lastSeq: 1,
    messages: [{ seq: 1, message: { role: 'user', content: text } }],
    finishedAt: new Date().toISOString(),
  };
  await jetstream(nc).publish(memoryIngestSubject(tenantId), JSON.stringify(turn), {
    msgID: `crash-${tenantId}-${runId}`,
  });
}

async function waitForDrain(): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await waitFor('the queue to drain', async () => {
    const info = await jsm.consumers.info(MEMORY_INGEST_STREAM, INGEST_CONSUMER);
    return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
  });
}

it('stores nothing twice and loses nothing when memory is SIGKILLed after the commit and before the ack', async () => {
  // The first process commits, then waits before acking: the test kills it in that window.
  const doomed = await startMemory({ MEMORY_FAULT_ACK_DELAY_MS: '60000', MEMORY_INGEST_ACK_WAIT_MS: '2000' });
  await publish('run-lisbon', 'I live in Lisbon');
  await waitFor('the commit', async () => ((await counts()).runs === 1 ? true : undefined));
  await doomed.kill();
  expect(await counts()).toEqual({ facts: 1, current: 1, episodes: 1, runs: 1 });
  // While memory is down, another turn finishes: it waits in the queue.
  await publish('run-porto', 'Now I live in Porto');
  const jsm = await jetstreamManager(nc);
  expect(
    (await jsm.consumers.info(MEMORY_INGEST_STREAM, INGEST_CONSUMER)).num_ack_pending +
      (await jsm.consumers.info(MEMORY_INGEST_STREAM, INGEST_CONSUMER)).num_pending,
  ).toBe(2);

  const survivor = await startMemory({ MEMORY_INGEST_ACK_WAIT_MS: '2000' });
  try {
    await waitForDrain();
    // Lisbon was redelivered and recognised; Porto was stored once and superseded Lisbon.
    expect(await counts()).toEqual({ facts: 2, current: 1, episodes: 2, runs: 2 });
    const { rows } = await db.query<{ object: string; current: boolean }>(
      `SELECT object, valid_to IS NULL AS current FROM facts ORDER BY created_at`,
    );
    expect(rows).toEqual([
      { object: 'Lisbon', current: false },
      { object: 'Porto', current: true },
    ]);
  } finally {
    await survivor.stop();
  }
});

it('stores a batch once when memory is SIGKILLed mid-batch, after its commit (acks lost) and before it (nothing written)', async () => {
  const batched = {
    MEMORY_INGEST_ACK_WAIT_MS: '2000',
    MEMORY_INGEST_BATCH_WAIT_MS: '1000',
    MEMORY_INGEST_BATCH_SIZE: '10',
  };
  // Three turns arrive within the batch wait: one transaction commits them, then the process dies before any ack.
  const afterCommit = await startMemory({ ...batched, MEMORY_FAULT_ACK_DELAY_MS: '60000' });
  for (const city of ['Rome', 'Oslo', 'Kyiv']) await publish(`run-${city}`, `I live in ${city}`, 'globex');
  await waitFor('the batch commit', async () => ((await counts('globex')).runs === 3 ? true : undefined));
  await afterCommit.kill();
  expect(await counts('globex')).toEqual({ facts: 3, current: 1, episodes: 3, runs: 3 });

  // Two more turns, whose extraction the model holds back: the process dies with the batch half done.
  const beforeCommit = await startMemory(batched);
  for (const city of ['Lima', 'Cusco']) await publish(`run-${city}`, `hold: I live in ${city}`, 'globex');
  await waitFor('the held extractions', async () =>
    model.seen.flatMap((r) => r.user.match(/hold:/g) ?? []).length >= 2 ? true : undefined,
  );
  await beforeCommit.kill();
  expect((await counts('globex')).runs).toBe(3);

  openGate();
  const survivor = await startMemory(batched);
  try {
    await waitForDrain();
    // Every turn once: the committed batch recognised on redelivery, the killed one stored whole.
    expect(await counts('globex')).toEqual({ facts: 5, current: 1, episodes: 5, runs: 5 });
    const { rows } = await db.query<{ run_id: string; n: number }>(
      `SELECT run_id, count(*)::int AS n FROM facts WHERE tenant_id = 'globex' GROUP BY run_id ORDER BY run_id`,
    );
    expect(rows).toEqual(
      ['run-Cusco', 'run-Kyiv', 'run-Lima', 'run-Oslo', 'run-Rome'].map((run_id) => ({ run_id, n: 1 })),
    );
  } finally {
    await survivor.stop();
  }
});
