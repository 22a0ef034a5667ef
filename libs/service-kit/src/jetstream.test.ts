import { jetstreamManager } from '@nats-io/jetstream';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureStream, followSubject, lastMessageJson } from './jetstream.js';
import { createLogger } from './logger.js';
import { connectNats, type NatsConnection } from './nats.js';

let server: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({
    servers: server.url,
    name: 'jetstream-test',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
});
afterAll(async () => {
  await nc.close();
  await server.stop();
});

describe('ensureStream', () => {
  it('creates a stream, and brings an existing one to the new settings without losing data', async () => {
    await ensureStream(nc, { name: 'EVENTS', subjects: ['events.>'], maxAgeMs: 60_000 });
    nc.publish('events.a', JSON.stringify({ n: 1 }));
    await nc.flush();
    await ensureStream(nc, { name: 'EVENTS', subjects: ['events.>'], maxAgeMs: 120_000 });
    const info = await (await jetstreamManager(nc)).streams.info('EVENTS');
    expect(info.config.max_age).toBe(120_000 * 1_000_000);
    expect(info.state.messages).toBe(1);
  });
});

describe('lastMessageJson', () => {
  it('reads the last message on a subject, and nothing for a subject without messages or a body that is not JSON', async () => {
    await ensureStream(nc, { name: 'LAST', subjects: ['last.>'], maxAgeMs: 60_000 });
    nc.publish('last.one', JSON.stringify({ id: 1 }));
    nc.publish('last.one', JSON.stringify({ id: 2 }));
    nc.publish('last.other', JSON.stringify({ id: 9 }));
    nc.publish('last.text', 'not json');
    await nc.flush();
    await new Promise((r) => setTimeout(r, 50)); // the stream stores what the server received
    expect(await lastMessageJson(nc, 'LAST', 'last.one')).toEqual({ id: 2 });
    expect(await lastMessageJson(nc, 'LAST', 'last.none')).toBeUndefined();
    expect(await lastMessageJson(nc, 'LAST', 'last.text')).toBeUndefined();
  });
});

describe('followSubject', () => {
  it('yields the stored messages of one subject oldest first, then new ones, until the signal aborts', async () => {
    await ensureStream(nc, { name: 'FOLLOW', subjects: ['follow.>'], maxAgeMs: 60_000 });
    nc.publish('follow.a', JSON.stringify({ n: 1 }));
    nc.publish('follow.b', JSON.stringify({ n: 99 }));
    nc.publish('follow.a', 'not json');
    await nc.flush();
    const stop = new AbortController();
    const seen: unknown[] = [];
    for await (const { body } of followSubject(nc, 'FOLLOW', 'follow.a', stop.signal)) {
      seen.push(body);
      if (seen.length === 2) nc.publish('follow.a', JSON.stringify({ n: 2 }));
      if (seen.length === 3) stop.abort();
    }
    expect(seen).toEqual([{ n: 1 }, undefined, { n: 2 }]);
  });
});
