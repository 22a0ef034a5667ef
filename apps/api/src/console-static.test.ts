import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { TokenVerifier } from './auth.js';
import type { ConsoleOptions } from './console-static.js';
import { noAgentPool, noEvents, noTrigger } from './test-support/unavailable-ports.js';

const built = mkdtempSync(path.join(tmpdir(), 'console-dist-'));
mkdirSync(path.join(built, 'assets'));
writeFileSync(path.join(built, 'index.html'), '<!doctype html><title>Console</title><div id="root"></div>');
writeFileSync(path.join(built, 'assets', 'index-abc123.js'), 'console.log("app")');

function appServing(console: ConsoleOptions): FastifyInstance {
  return buildApp({
    logger: createLogger({ service: 'api-test', level: 'silent' }),
    verifier: new TokenVerifier({ secret: 'console-test-secret-console-test-secret' }),
    maxBodyBytes: 10_000,
    orchestrator: {} as never,
    memory: {} as never,
    events: noEvents,
    agentPool: noAgentPool,
    trigger: noTrigger,
    limits: { maxMessageChars: 100, turnWaitMs: 1_000, sseHeartbeatMs: 1_000 },
    health: { dependencies: {}, probeTimeoutMs: 200, isAccepting: () => true },
    console,
  });
}

describe('the console, built', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = appServing({ dir: built, traceUrlTemplate: 'http://jaeger.local/trace/{traceId}', operatorRole: 'ops' });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    rmSync(built, { recursive: true, force: true });
  });

  it('serves its page without a token, revalidated on each load', async () => {
    for (const url of ['/console', '/console/']) {
      const page = await app.inject({ url });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.headers['content-security-policy']).toContain("default-src 'self'");
      expect(page.body).toContain('<div id="root">');
    }
  });

  it('answers every client route with the page (the app routes in the browser)', async () => {
    const page = await app.inject({ url: '/console/runs/run_123?status=failed' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<div id="root">');
  });

  it('caches hashed assets for good and answers a missing one with 404', async () => {
    const asset = await app.inject({ url: '/console/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await app.inject({ url: '/console/assets/index-old.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('tells the console its trace link template', async () => {
    const config = await app.inject({ url: '/console/config.json' });
    expect(config.json()).toEqual({ traceUrlTemplate: 'http://jaeger.local/trace/{traceId}', operatorRole: 'ops' });
  });

  it('still asks for a token on the API', async () => {
    const runs = await app.inject({ url: '/v1/runs' });
    expect(runs.statusCode).toBe(401);
    expect(runs.json()).toMatchObject({ error: { code: 'MISSING_TOKEN' } });
  });
});

describe('the console, not built', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = appServing({ dir: path.join(built, 'no-such-dir'), traceUrlTemplate: '', operatorRole: 'ops' });
    await app.ready();
  });
  afterAll(() => app.close());

  it('says how to build it, while the API works on', async () => {
    const page = await app.inject({ url: '/console/runs' });
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('npx nx run console:build');
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });
});
