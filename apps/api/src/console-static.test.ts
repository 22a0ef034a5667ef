import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useOrchestratorEdgeApp } from './test-support/orchestrator-edge-app.js';

const SECRET = 'console-test-secret-console-test-secret';
const built = mkdtempSync(path.join(tmpdir(), 'console-dist-'));
mkdirSync(path.join(built, 'assets'));
writeFileSync(path.join(built, 'index.html'), '<!doctype html><title>Console</title><div id="root"></div>');
writeFileSync(path.join(built, 'assets', 'index-abc123.js'), 'console.log("app")');
afterAll(() => rmSync(built, { recursive: true, force: true }));

describe('the console, built', () => {
  const { inject } = useOrchestratorEdgeApp(
    SECRET,
    {},
    { console: { dir: built, traceUrlTemplate: 'http://jaeger.local/trace/{traceId}', operatorRole: 'ops' } },
  );

  it('serves its page without a token, revalidated on each load', async () => {
    for (const url of ['/console', '/console/']) {
      const page = await inject({ url });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.headers['content-security-policy']).toContain("default-src 'self'");
      expect(page.body).toContain('<div id="root">');
    }
  });

  it('answers every client route with the page (the app routes in the browser)', async () => {
    const page = await inject({ url: '/console/runs/run_123?status=failed' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<div id="root">');
  });

  it('caches hashed assets for good and answers a missing one with 404', async () => {
    const asset = await inject({ url: '/console/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await inject({ url: '/console/assets/index-old.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('tells the console its trace link template and the operator role', async () => {
    const config = await inject({ url: '/console/config.json' });
    expect(config.json()).toEqual({ traceUrlTemplate: 'http://jaeger.local/trace/{traceId}', operatorRole: 'ops' });
  });

  it('still asks for a token on the API', async () => {
    const runs = await inject({ url: '/v1/runs' });
    expect(runs.statusCode).toBe(401);
    expect(runs.json()).toMatchObject({ error: { code: 'MISSING_TOKEN' } });
  });
});

describe('the console, not built', () => {
  const { inject } = useOrchestratorEdgeApp(
    SECRET,
    {},
    { console: { dir: path.join(built, 'no-such-dir'), traceUrlTemplate: '', operatorRole: 'ops' } },
  );

  it('says how to build it, while the API works on', async () => {
    const page = await inject({ url: '/console/runs' });
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('npx nx run console:build');
    expect((await inject({ url: '/healthz' })).statusCode).toBe(200);
  });
});
