// The replica's model connection cache: bounded, expiring, keyed by tenant and name, and dropped
// by change notices over a real NATS server (a malformed notice is skipped, the next one heard).
import { modelConnectionChangedSubject, MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX } from '@platform/contracts';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionCache } from './connection-cache.js';

const logger = createLogger({ service: 'connection-cache-test', level: 'silent' });
const conn = (name: string, apiKey = `key-${name}`) => ({ name, baseUrl: 'https://llm.example/v1', apiKey });
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connectNats({ servers: sharedInfra().natsUrl, name: 'connection-cache-test', logger });
});
afterAll(() => nc.close());

describe('ConnectionCache', () => {
  it('keeps tenants apart, even for names and tenants that would collide when joined', () => {
    const cache = new ConnectionCache({ maxEntries: 10, ttlMs: 1_000 });
    cache.set('acme', conn('llm'), cache.epoch);
    expect(cache.get('acme', 'llm')?.apiKey).toBe('key-llm');
    expect(cache.get('globex', 'llm')).toBeUndefined();
    cache.set('a.b', conn('c'), cache.epoch);
    expect(cache.get('a', 'b.c')).toBeUndefined();
  });

  it('drops the least recently used past its bound, and entries past their age', () => {
    let now = 0;
    const cache = new ConnectionCache({ maxEntries: 2, ttlMs: 100, now: () => now });
    cache.set('t', conn('a'), cache.epoch);
    cache.set('t', conn('b'), cache.epoch);
    expect(cache.get('t', 'a')).toBeDefined(); // a is now the most recently used
    cache.set('t', conn('c'), cache.epoch);
    expect(cache.get('t', 'b')).toBeUndefined();
    expect(cache.get('t', 'a')).toBeDefined();
    now = 100;
    expect(cache.get('t', 'a')).toBeUndefined();
    expect(cache.get('t', 'c')).toBeUndefined();
  });

  it('does not store a lookup that began before a change notice', () => {
    const cache = new ConnectionCache({ maxEntries: 10, ttlMs: 1_000 });
    const epoch = cache.epoch;
    cache.invalidate('t', 'llm');
    cache.set('t', conn('llm', 'stale-key'), epoch);
    expect(cache.get('t', 'llm')).toBeUndefined();
    cache.set('t', conn('llm', 'fresh-key'), cache.epoch);
    expect(cache.get('t', 'llm')?.apiKey).toBe('fresh-key');
  });

  it('drops what a change notice names, and goes on after a malformed one', async () => {
    const cache = new ConnectionCache({ maxEntries: 10, ttlMs: 600_000 });
    const listening = cache.listen(nc, logger);
    await listening.ready;
    try {
      cache.set('acme', conn('one'), cache.epoch);
      cache.set('acme', conn('two'), cache.epoch);
      cache.set('globex', conn('one'), cache.epoch);
      nc.publish(`${MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX}.acme.one`, 'not json');
      nc.publish(`${MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX}.acme.one`, JSON.stringify({ tenantId: 'acme' }));
      nc.publish(modelConnectionChangedSubject('acme', 'one'), JSON.stringify({ tenantId: 'acme', name: 'one' }));
      // A second notice after it: once it is heard, the one before was heard too (one subscription, in order).
      nc.publish(modelConnectionChangedSubject('acme', 'two'), JSON.stringify({ tenantId: 'acme', name: 'two' }));
      await nc.flush();
      for (let i = 0; i < 500 && cache.get('acme', 'two'); i++) await new Promise((r) => setTimeout(r, 10));
      expect(cache.get('acme', 'two')).toBeUndefined();
      expect(cache.get('acme', 'one')).toBeUndefined();
      expect(cache.get('globex', 'one')?.apiKey).toBe('key-one');
    } finally {
      listening.stop();
    }
  });
});
