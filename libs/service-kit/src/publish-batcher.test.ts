import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { connectNats, type NatsConnection } from './nats.js';
import { PublishBatcher } from './publish-batcher.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let server: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'publish-batcher-test', logger });
});
afterAll(async () => {
  await nc.close();
  await server.stop();
});

const nextLoopTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('PublishBatcher', () => {
  it('holds publishes made across awaits until the loop turn ends, then sends them together in order', async () => {
    const sent: string[] = [];
    const spied = Object.create(nc, {
      publish: { value: (subject: string) => void sent.push(subject) },
    }) as NatsConnection;
    const batcher = PublishBatcher.of(spied);
    batcher.publish('a', '1');
    await Promise.resolve();
    batcher.publish('b', '2');
    await Promise.resolve();
    batcher.publish('c', '3');
    expect(sent).toEqual([]);
    await nextLoopTurn();
    expect(sent).toEqual(['a', 'b', 'c']);
  });

  it('send hands what is queued to the connection at once, in order, without a round trip', async () => {
    const sent: string[] = [];
    let flushes = 0;
    const spied = Object.create(nc, {
      publish: { value: (subject: string) => void sent.push(subject) },
      flush: { value: () => ((flushes += 1), Promise.resolve()) },
    }) as NatsConnection;
    const batcher = PublishBatcher.of(spied);
    batcher.publish('a', '1');
    await Promise.resolve();
    batcher.publish('b', '2');
    batcher.send();
    expect(sent).toEqual(['a', 'b']);
    batcher.publish('c', '3');
    await nextLoopTurn();
    expect(sent).toEqual(['a', 'b', 'c']);
    expect(flushes).toBe(0);
  });

  it('is one batcher per connection', () => {
    expect(PublishBatcher.of(nc)).toBe(PublishBatcher.of(nc));
  });

  it('delivers everything in order, and flush waits until the server has it', async () => {
    const receiver = await connectNats({ servers: server.url, name: 'receiver', logger });
    const sub = receiver.subscribe('batched.>');
    await receiver.flush();
    const batcher = PublishBatcher.of(nc);
    for (let i = 0; i < 50; i++) {
      batcher.publish(`batched.${i % 3}`, String(i));
      if (i % 7 === 0) await Promise.resolve();
    }
    await batcher.flush();
    const received: string[] = [];
    for await (const message of sub) {
      received.push(message.string());
      if (received.length === 50) break;
    }
    expect(received).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    await receiver.close();
  });

  it('answers the flushes asked for in one loop turn with one round trip, each after its own publishes', async () => {
    let pings = 0;
    const counted = Object.create(nc, { flush: { value: () => (pings++, nc.flush()) } }) as NatsConnection;
    const receiver = await connectNats({ servers: server.url, name: 'flush-receiver', logger });
    const sub = receiver.subscribe('flushed.>');
    await receiver.flush();
    const batcher = PublishBatcher.of(counted);
    const flushes = ['a', 'b', 'c'].map((name) => {
      batcher.publish(`flushed.${name}`, name);
      return batcher.flush();
    });
    await Promise.all(flushes);
    expect(pings).toBe(1);
    await batcher.flush();
    expect(pings).toBe(2);
    const received: string[] = [];
    for await (const message of sub) {
      received.push(message.string());
      if (received.length === 3) break;
    }
    expect(received).toEqual(['a', 'b', 'c']);
    await receiver.close();
  });

  it('reports a publish the client refuses to its own error callback, and sends the rest', async () => {
    const closed = await connectNats({ servers: server.url, name: 'closed', logger });
    await closed.close();
    const errors: string[] = [];
    const batcher = PublishBatcher.of(closed);
    batcher.publish('x', '1', { onError: (err) => errors.push(`x: ${err.message}`) });
    batcher.publish('y', '2', { onError: (err) => errors.push(`y: ${err.message}`) });
    await nextLoopTurn();
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^x: .*closed/i);
  });
});
