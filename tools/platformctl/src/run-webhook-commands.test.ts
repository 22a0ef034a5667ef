import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './cli.js';

// `runs deliveries` and `webhook-settings` against an HTTP server that answers as the api does
// (the api's own answers are tested in the orchestrator's and e2e suites).
let server: Server;
let baseUrl: string;
const seen: Array<{ method: string; url: string; body: string }> = [];

const DELIVERY = {
  deliveryId: 'msg_0123',
  runId: 'run_1',
  runStatus: 'completed',
  url: 'https://hooks.example.com/runs',
  status: 'pending',
  attempts: 2,
  lastError: 'HTTP 503',
  createdAt: '2026-06-01T09:30:02.000Z',
  nextAttemptAt: '2026-06-01T09:30:06.000Z',
  deliveredAt: null,
};

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', body });
      const answer = request.url?.startsWith('/v1/runs/run_1/')
        ? { deliveries: [DELIVERY] }
        : request.url?.startsWith('/v1/runs/')
          ? { deliveries: [] }
          : { url: null, secret: request.method === 'PUT' ? 'whsec_new' : 'whsec_old', updatedAt: null };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function run(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runCli([...argv, '--api', baseUrl, '--token', 'tok'], {
    env: {},
    out: (t) => (out += t),
    err: () => undefined,
  });
  return { code, out };
}

it("prints a run's webhook deliveries, and says so when there are none", async () => {
  const { code, out } = await run(['runs', 'deliveries', 'run_1']);
  expect(code).toBe(0);
  expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v1/runs/run_1/webhook-deliveries' });
  expect(out).toContain('msg_0123');
  expect(out).toContain('HTTP 503');
  expect((await run(['runs', 'deliveries', 'run_2'])).out).toContain('no webhook deliveries');
  expect((await run(['runs', 'deliveries'])).code).toBe(2);
});

it('reads the webhook settings, and rotates the secret with --rotate-secret', async () => {
  expect((await run(['webhook-settings'])).out).toContain('whsec_old');
  expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v1/webhook-settings' });
  expect((await run(['webhook-settings', '--rotate-secret'])).out).toContain('whsec_new');
  expect(seen.at(-1)).toMatchObject({ method: 'PUT', url: '/v1/webhook-settings', body: '{"rotateSecret":true}' });
});
