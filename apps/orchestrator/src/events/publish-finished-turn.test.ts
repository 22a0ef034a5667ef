import { jetstreamManager } from '@nats-io/jetstream';
import { MEMORY_INGEST_STREAM, MEMORY_INGEST_SUBJECT_PREFIX, TurnFinished } from '@platform/contracts';
import { connectNats, createLogger, ensureStream, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FinishedTurnPublisher } from './publish-finished-turn.js';

const logger = createLogger({ service: 'publish-finished-turn-test', level: 'silent' });
let nats: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'publish-finished-turn-test', logger });
});

afterAll(async () => {
  await nc.drain();
  await nats.stop();
});

const turn = (runId: string, content = 'I moved to Berlin', tier = '') => ({
  tenantId: 'acme.eu',
  conversationId: 'conv-1',
  runId,
  profile: 'default',
  tier,
  messages: [
    { role: 'user' as const, content },
    { role: 'assistant' as const, content: 'Noted.' },
  ],
  firstSeq: 7,
});

describe('FinishedTurnPublisher', () => {
  it('never fails the turn when the ingestion stream does not exist', async () => {
    const publisher = new FinishedTurnPublisher(nc, { maxInlineBytes: 1_000_000, maxPending: 10 }, logger);
    await expect(publisher.publish(turn('run_missing'))).resolves.toBeUndefined();
  });

  it('publishes the turn with its seqs once per run, and without messages when it is too large', async () => {
    await ensureStream(nc, {
      name: MEMORY_INGEST_STREAM,
      subjects: [`${MEMORY_INGEST_SUBJECT_PREFIX}.>`],
      maxAgeMs: 60_000,
      retention: 'workqueue',
    });
    const publisher = new FinishedTurnPublisher(nc, { maxInlineBytes: 2_000, maxPending: 10 }, logger);
    await publisher.publish(turn('run_1'));
    await publisher.publish(turn('run_1'));
    await publisher.publish(turn('run_big', 'x'.repeat(5_000), 'pro'));
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info(MEMORY_INGEST_STREAM)).state.messages).toBe(2);
    const first = TurnFinished.parse((await jsm.streams.getMessage(MEMORY_INGEST_STREAM, { seq: 1 }))?.json());
    expect(first).toMatchObject({
      tenantId: 'acme.eu',
      runId: 'run_1',
      firstSeq: 7,
      lastSeq: 8,
      messages: [{ seq: 7 }, { seq: 8 }],
    });
    const big = TurnFinished.parse((await jsm.streams.getMessage(MEMORY_INGEST_STREAM, { seq: 2 }))?.json());
    // The run's tier goes with the turn (memory holds its facts to that tier's quota); none: no field.
    expect(big).toMatchObject({ runId: 'run_big', firstSeq: 7, lastSeq: 8, tier: 'pro' });
    expect(first.tier).toBeUndefined();
    expect(big.messages).toBeUndefined();
  });
});
