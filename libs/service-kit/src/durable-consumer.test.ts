// The durable consumer shared by the services' event listeners, on a real NATS: it waits for its
// stream, acknowledges handled messages, redelivers failed ones, drops malformed ones, and goes on.
import { jetstreamManager } from '@nats-io/jetstream';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DurableConsumer } from './durable-consumer.js';
import { ensureStream } from './jetstream.js';
import { createLogger } from './logger.js';
import { connectNats, type NatsConnection } from './nats.js';

let server: NatsServerHandle;
let nc: NatsConnection;
const logger = createLogger({ service: 'test', level: 'silent' });

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'durable-consumer-test', logger });
});
afterAll(async () => {
  await nc.close();
  await server.stop();
});

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('DurableConsumer', () => {
  it('waits for its stream, handles each message, redelivers a failure and drops what does not parse', async () => {
    const seen: number[] = [];
    let failOnce = true;
    const consumer = new DurableConsumer(nc, {
      stream: 'WORK',
      durableName: 'worker',
      schema: z.object({ n: z.number() }),
      handle: async ({ n }) => {
        if (n === 2 && failOnce) {
          failOnce = false;
          throw new Error('not now');
        }
        seen.push(n);
      },
      what: 'work items',
      logger,
      retryMs: 50,
      lagPollMs: 50,
    });
    consumer.start(); // before the stream exists: it keeps trying
    await new Promise((r) => setTimeout(r, 120));
    await ensureStream(nc, { name: 'WORK', subjects: ['work.>'], maxAgeMs: 60_000 });
    for (const body of [{ n: 1 }, { n: 'not a number' }, { n: 2 }, { n: 3 }])
      nc.publish('work.item', JSON.stringify(body));
    nc.publish('work.item', 'not json at all');
    await until('every valid message handled', () => seen.length === 3);
    expect([...seen].sort()).toEqual([1, 2, 3]);
    const jsm = await jetstreamManager(nc);
    await until('nothing left pending', async () => {
      const info = await jsm.consumers.info('WORK', 'worker');
      return info.num_pending === 0 && info.num_ack_pending === 0;
    });
    // Its lag (the platform.consumer.lag gauge) follows the consumer's state.
    await until('the lag reading to reach 0', () => consumer.currentLag === 0);
    await consumer.stop();
  });
});
