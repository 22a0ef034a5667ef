import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { headers } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { connectNats, headerGetter, headerSetter } from './nats.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let server: NatsServerHandle;

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => server.stop());

describe('connectNats', () => {
  it('survives a NATS server restart and resumes request-reply', async () => {
    const nc = await connectNats({ servers: server.url, name: 'test', logger });
    nc.subscribe('echo', {
      callback: (_err, msg) => {
        msg.respond(msg.data);
      },
    });
    expect((await nc.request('echo', 'one', { timeout: 1_000 })).string()).toBe('one');
    await server.restart();
    let reply: string | undefined;
    for (let attempt = 0; attempt < 100 && !reply; attempt++) {
      reply = await nc.request('echo', 'two', { timeout: 200 }).then(
        (m) => m.string(),
        () => undefined,
      );
    }
    expect(reply).toBe('two');
    await nc.close();
  });

  it('adapts message headers to getter and setter functions', () => {
    const h = headers();
    headerSetter(h)('traceparent', '00-abc-def-01');
    expect(headerGetter(h)('traceparent')).toBe('00-abc-def-01');
    expect(headerGetter(h)('missing')).toBeUndefined();
    expect(headerGetter(undefined)('anything')).toBeUndefined();
  });
});
