// Long-term memory's duty: every finished turn is handed to memory on a JetStream work queue (the
// turn does not wait for the stream's ack) and learned from there in batches, as the platform's
// memory does: per batch one extraction request to the model, one embeddings request for what was
// learned, and one commit storing it with its vector (HNSW-indexed, deduplicated by run), then
// the batch's messages are acknowledged. What it learns is the user's words (llm-sim's answer is
// not a real extraction); the exchanges and writes are the ones learning needs.
import {
  AckPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JsMsg,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type pg from 'pg';
import type { WorkQueue } from '../ingestion-queue.js';
import { JsonClient } from '../json-client.js';
import { SIM_MODEL } from '../calculator.js';
import { inSpan, tracedHeaders } from './trace-context.js';

const STREAM = 'SKELETON_INGEST';
const SUBJECT_PREFIX = 'skeleton.ingest';
const CONSUMER = 'skeleton-memory';
/** The queue the bench waits to see drained after a phase (its work is counted). */
export const LEARNING_QUEUE: WorkQueue = { stream: STREAM, consumer: CONSUMER };
/** As the platform's memory defaults (MEMORY_INGEST_BATCH_SIZE, MEMORY_INGEST_BATCH_WAIT_MS). */
const BATCH_SIZE = 50;
const BATCH_WAIT_MS = 200;
const EMBEDDING_DIMENSIONS = 256;

export interface FinishedTurn {
  tenant: string;
  runId: string;
  messages: ReadonlyArray<{ role: string; content?: string | null }>;
}

/** Creates the table of what was learned in `db`; resolves with the schema pgvector lives in (the platform's memory may have put it in its own). */
export async function createLearnedTable(db: Pick<pg.Client, 'query'>): Promise<string> {
  await db.query('CREATE EXTENSION IF NOT EXISTS vector');
  const { rows } = await db.query<{ schema: string }>(
    `SELECT extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extname = 'vector'`,
  );
  const schema = rows[0]!.schema;
  await db.query(
    `CREATE TABLE IF NOT EXISTS skeleton.learned (run_id uuid PRIMARY KEY, tenant text NOT NULL, fact text NOT NULL, embedding ${schema}.vector(${EMBEDDING_DIMENSIONS}) NOT NULL)`,
  );
  await db.query(
    `CREATE INDEX IF NOT EXISTS learned_by_embedding ON skeleton.learned USING hnsw (embedding ${schema}.vector_cosine_ops)`,
  );
  return schema;
}

export async function ensureIngestStream(nc: NatsConnection): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({
    name: STREAM,
    subjects: [`${SUBJECT_PREFIX}.>`],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: 10 * 60 * 1e9,
  });
  await jsm.consumers.add(STREAM, {
    durable_name: CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: 30 * 1e9,
    max_ack_pending: 10_000,
  });
}

/** The orchestrator's side: publishes a finished turn and returns at once (a failed publish is logged; the turn has its answer). */
export class FinishedTurns {
  private readonly js: JetStreamClient;

  constructor(
    nc: NatsConnection,
    private readonly traced: boolean,
  ) {
    this.js = jetstream(nc);
  }

  hand(turn: FinishedTurn): void {
    this.js
      .publish(`${SUBJECT_PREFIX}.${turn.tenant}`, JSON.stringify(turn), {
        msgID: turn.runId,
        ...(this.traced ? { headers: tracedHeaders() } : {}),
      })
      .catch((err: unknown) => {
        process.stderr.write(`memory ingestion publish failed for run ${turn.runId}: ${(err as Error).message}\n`);
      });
  }
}

/** Memory's side: consumes finished turns in batches until the returned function stops it. */
export async function learnFromFinishedTurns(
  nc: NatsConnection,
  pool: pg.Pool,
  vectorSchema: string,
  modelUrl: string,
  authorization: string,
  traced: boolean,
): Promise<() => Promise<void>> {
  const model = new JsonClient();
  const consumer = await jetstream(nc).consumers.get(STREAM, CONSUMER);
  const messages = await consumer.consume({ max_messages: BATCH_SIZE * 2 });
  let batch: JsMsg[] = [];
  let timer: NodeJS.Timeout | undefined;
  const storing = new Set<Promise<void>>();

  async function post(path: string, body: unknown): Promise<unknown> {
    const response = await model.post(`${modelUrl}${path}`, { authorization }, body);
    if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status}`);
    return response.body;
  }

  async function learn(taken: JsMsg[]): Promise<void> {
    const turns = taken.map((m) => m.json<FinishedTurn>());
    const facts = turns.map((t) => t.messages.find((m) => m.role === 'user')?.content ?? '');
    const transcript = turns
      .map((t, i) => `turn ${i + 1}: ${t.messages.map((m) => `${m.role}: ${m.content ?? ''}`).join('\n')}`)
      .join('\n\n');
    await post('/chat/completions', {
      model: SIM_MODEL,
      messages: [
        { role: 'system', content: 'List what is worth remembering from each turn.' },
        { role: 'user', content: transcript },
      ],
    });
    const embedded = (await post('/embeddings', {
      model: 'sim-embed-1',
      input: facts,
      dimensions: EMBEDDING_DIMENSIONS,
    })) as { data: Array<{ embedding: number[] }> };
    await pool.query(
      `INSERT INTO skeleton.learned (run_id, tenant, fact, embedding)
       SELECT r, t, f, e::${vectorSchema}.vector FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS x(r, t, f, e)
       ON CONFLICT (run_id) DO NOTHING`,
      [
        turns.map((t) => t.runId),
        turns.map((t) => t.tenant),
        facts,
        embedded.data.map((d) => `[${d.embedding.join(',')}]`),
      ],
    );
  }

  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    const taken = batch;
    batch = [];
    const stored = (traced ? inSpan('learn batch', () => learn(taken)) : learn(taken)).then(
      () => taken.forEach((m) => m.ack()),
      (err: unknown) => {
        process.stderr.write(`learning from ${taken.length} turns failed: ${(err as Error).message}\n`);
        taken.forEach((m) => m.nak(1_000));
      },
    );
    storing.add(stored);
    void stored.finally(() => storing.delete(stored));
  };

  const consuming = (async () => {
    for await (const message of messages) {
      batch.push(message);
      if (batch.length >= BATCH_SIZE) flush();
      else timer ??= setTimeout(flush, BATCH_WAIT_MS);
    }
  })();

  return async () => {
    await messages.close();
    await consuming;
    if (batch.length) flush();
    await Promise.all(storing);
    model.close();
  };
}
