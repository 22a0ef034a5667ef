import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compileEgressAllowlist, EgressGuard } from '@platform/egress';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attemptWebhook,
  newWebhookSecret,
  retryDelayMs,
  signWebhook,
  verifyWebhook,
  WEBHOOK_HEADERS,
} from './index.js';

/**
 * The Standard Webhooks verification as the spec writes it, independently of the code under test:
 * the signed content is `id.timestamp.body`, each space-separated `v1,<base64>` entry of the
 * signature header is an HMAC-SHA256 of it under the key (the spec's base64 key, decoded).
 */
function specVerify(base64Key: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(base64Key, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return header.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    return version === 'v1' && signature === expected;
  });
}

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

const received: Received[] = [];
/** What the receiver answers next (a status, or 'hang' to never answer). */
let answer: number | 'hang' = 200;
let server: Server;
let url: string;
const hanging: ServerResponse[] = [];
const loopbackOnly = new EgressGuard({
  allowlist: compileEgressAllowlist({ EGRESS_ALLOW_HOSTS: [], EGRESS_ALLOW_CIDRS: ['127.0.0.1/32'] }),
});
const strict = new EgressGuard({
  allowlist: compileEgressAllowlist({ EGRESS_ALLOW_HOSTS: [], EGRESS_ALLOW_CIDRS: [] }),
});

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (answer === 'hang') hanging.push(res);
      else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await Promise.all([loopbackOnly.close(), strict.close()]);
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('signatures', () => {
  it('signs id.timestamp.body so a Standard Webhooks verifier accepts it, and refuses tampering or old timestamps', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    const signature = signWebhook(secret, 'msg_1', 1_700_000_000, '{"a":1}');
    const key = Buffer.from(secret, 'utf8').toString('base64');
    expect(specVerify(key, 'msg_1', '1700000000', '{"a":1}', signature)).toBe(true);
    expect(specVerify(key, 'msg_1', '1700000000', '{"a":2}', signature)).toBe(false);
    const headers = { id: 'msg_1', timestamp: '1700000000', signature: `v1,bogus ${signature}` };
    expect(verifyWebhook(secret, headers, '{"a":1}', 1_700_000_100)).toBe(true);
    expect(verifyWebhook(secret, headers, '{"a":1}', 1_700_001_000)).toBe(false);
    expect(verifyWebhook(newWebhookSecret(), headers, '{"a":1}', 1_700_000_100)).toBe(false);
  });

  it('backs off exponentially up to the cap', () => {
    const policy = { maxAttempts: 8, retryBaseMs: 1_000, retryMaxMs: 5_000 };
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy, attempt))).toEqual([
      1_000, 2_000, 4_000, 5_000, 5_000,
    ]);
  });
});

describe('one attempt against a real receiver', () => {
  const message = { id: 'msg_attempt', url: '', body: '{"status":"completed"}', secret: 'whsec_test' };

  it('delivers signed with the Standard Webhooks headers', async () => {
    answer = 200;
    const before = received.length;
    const nowMs = Date.now();
    expect(await attemptWebhook(loopbackOnly, { ...message, url }, nowMs, 5_000)).toEqual({ delivered: true });
    const got = received[before]!;
    expect(got.body).toBe(message.body);
    expect(got.headers[WEBHOOK_HEADERS.id]).toBe('msg_attempt');
    expect(got.headers[WEBHOOK_HEADERS.timestamp]).toBe(String(Math.floor(nowMs / 1000)));
    const key = Buffer.from(message.secret).toString('base64');
    const header = String(got.headers[WEBHOOK_HEADERS.signature]);
    expect(specVerify(key, 'msg_attempt', String(got.headers[WEBHOOK_HEADERS.timestamp]), got.body, header)).toBe(true);
  });

  it('retries a 500 and a 429, not a 400', async () => {
    for (const [status, retry] of [
      [500, true],
      [429, true],
      [400, false],
    ] as const) {
      answer = status;
      expect(await attemptWebhook(loopbackOnly, { ...message, url }, Date.now(), 5_000)).toEqual({
        delivered: false,
        retry,
        error: `HTTP ${status}`,
      });
    }
  });

  it('retries a receiver that does not answer in time', async () => {
    answer = 'hang';
    const outcome = await attemptWebhook(loopbackOnly, { ...message, url }, Date.now(), 200);
    expect(outcome).toMatchObject({ delivered: false, retry: true });
    answer = 200;
  });

  it('never connects to a loopback receiver the egress guard refuses, and does not retry it', async () => {
    const before = received.length;
    const outcome = await attemptWebhook(strict, { ...message, url }, Date.now(), 5_000);
    expect(outcome).toMatchObject({ delivered: false, retry: false });
    expect(outcome.delivered ? '' : outcome.error).toMatch(/^EGRESS_REFUSED/);
    expect(received.length).toBe(before);
  });
});
