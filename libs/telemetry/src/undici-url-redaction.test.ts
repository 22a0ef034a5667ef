import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInstrumentations } from './instrumentations.js';
import { installTestTracing, type TestTracing } from './test-support/tracing-harness.js';

let tracing: TestTracing;
let instrumentations: ReturnType<typeof createInstrumentations>;
let server: Server;
let origin: string;

beforeAll(async () => {
  tracing = installTestTracing();
  instrumentations = createInstrumentations(['undici']);
  instrumentations.forEach((i) => i.setTracerProvider(tracing.provider));
  server = createServer((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  instrumentations.forEach((i) => i.disable());
  await tracing.uninstall();
  await new Promise((resolve) => server.close(resolve));
});

describe('fetch spans', () => {
  it('carry the URL with every query value redacted (a tenant-set URL may hold a token there)', async () => {
    const response = await fetch(`${origin}/hook?token=tok-s3cr3t&sig=abc123`, { method: 'POST', body: '{}' });
    await response.text();
    const span = tracing.spans().find((s) => s.attributes['url.path'] === '/hook');
    expect(span?.attributes['url.full']).toBe(`${origin}/hook?token=[redacted]&sig=[redacted]`);
    expect(span?.attributes['url.query']).toBe('?token=[redacted]&sig=[redacted]');
    expect(JSON.stringify(span?.attributes)).not.toMatch(/tok-s3cr3t|abc123/);
  });
});
