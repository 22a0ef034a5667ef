import { RUN_ENDED_SUBJECT_PREFIX, RunEnded } from '@platform/contracts';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEndPublisher } from './publish-run-end.js';

const logger = createLogger({ service: 'publish-run-end-test', level: 'silent' });
let nats: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'publish-run-end-test', logger });
});

afterAll(async () => {
  await nc.drain();
  await nats.stop();
});

describe('RunEndPublisher', () => {
  it("announces the run on its tenant's subject, and never throws for a run it cannot announce", async () => {
    const subscription = nc.subscribe(`${RUN_ENDED_SUBJECT_PREFIX}.>`, { max: 1 });
    await nc.flush();
    const publisher = new RunEndPublisher(nc, logger);
    expect(() =>
      publisher.announce({
        tenantId: 'not a tenant!',
        conversationId: 'conv-1',
        runId: 'run_1',
        stopReason: 'final_answer',
      }),
    ).not.toThrow();
    publisher.announce({ tenantId: 'acme.eu', conversationId: 'conv-1', runId: 'run_2', stopReason: 'final_answer' });
    for await (const msg of subscription) {
      expect(msg.subject).toBe('platform.run-ended.acme%2Eeu');
      expect(RunEnded.parse(JSON.parse(msg.string()))).toMatchObject({
        type: 'run.ended',
        tenantId: 'acme.eu',
        runId: 'run_2',
        conversationId: 'conv-1',
        stopReason: 'final_answer',
      });
    }
  });
});
