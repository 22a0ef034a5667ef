import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, WEBHOOK_HEADERS } from '@platform/webhooks';
import { rejection, startReplicas, type Replicas } from './test-support/trigger-harness.js';

interface Delivery {
  path: string;
  id: string;
  verified: boolean;
  body: Record<string, unknown>;
}

let r: Replicas;
let receiver: Server;
let url: string;
const deliveries: Delivery[] = [];
/** Status the receiver answers, per path, in turn (then 200). */
const script = new Map<string, number[]>();
const secrets = new Map<string, string>();

beforeAll(async () => {
  // The receiver listens on loopback, which the egress guard refuses unless the operator allows it.
  r = await startReplicas(1, '2026-06-01T12:00:00Z', {
    TRIGGER_WEBHOOK_ALLOW_HTTP: 'true',
    EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
    TRIGGER_WEBHOOK_TIMEOUT_MS: '30000',
    TRIGGER_WEBHOOK_RETRY_BASE_MS: '1000',
    TRIGGER_WEBHOOK_MAX_ATTEMPTS: '4',
  });
  receiver = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const header = (name: string) => String(request.headers[name] ?? '');
      const path = request.url ?? '';
      const secret = secrets.get(path) ?? '';
      const verified = verifyWebhook(
        secret,
        {
          id: header(WEBHOOK_HEADERS.id),
          timestamp: header(WEBHOOK_HEADERS.timestamp),
          signature: header(WEBHOOK_HEADERS.signature),
        },
        text,
        Math.floor(r.clock.now() / 1000),
      );
      deliveries.push({
        path,
        id: header(WEBHOOK_HEADERS.id),
        verified,
        body: JSON.parse(text) as Record<string, unknown>,
      });
      response.statusCode = script.get(path)?.shift() ?? 200;
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await r?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function webhookTask(path: string): Promise<string> {
  const { task, webhookSecret } = await r.client.rpc.createTask({
    tenantId: 'acme',
    userId: 'alice',
    requestId: '',
    specJson: JSON.stringify({
      name: `hook ${path}`,
      trigger: { type: 'schedule', cron: '0 0 1 1 *' },
      executor: 'noop_exec',
      output: { channel: 'webhook', url: `${url}${path}` },
    }),
  });
  expect(webhookSecret).toMatch(/^whsec_/);
  secrets.set(path, webhookSecret);
  await r.client.rpc.runTaskNow({ tenantId: 'acme', taskId: task!.taskId, requestId: '' });
  await r.round();
  return task!.taskId;
}

const of = (path: string) => deliveries.filter((d) => d.path === path);

describe('webhook notifications', () => {
  it('delivers a fire outcome signed with the task secret; retries 5xx with backoff under one id', async () => {
    script.set('/flaky', [500, 503]);
    const taskId = await webhookTask('/flaky');
    await r.servers[0]!.webhooks.deliverDue();
    expect(of('/flaky')).toHaveLength(1);
    await r.servers[0]!.webhooks.deliverDue(); // not due yet: backoff
    expect(of('/flaky')).toHaveLength(1);
    r.clock.advance(1_000);
    await r.servers[0]!.webhooks.deliverDue();
    r.clock.advance(2_000);
    await r.servers[0]!.webhooks.deliverDue();
    r.clock.advance(60_000);
    await r.servers[0]!.webhooks.deliverDue(); // delivered: nothing more
    const seen = of('/flaky');
    expect(seen).toHaveLength(3);
    expect(seen.every((d) => d.verified)).toBe(true);
    expect(new Set(seen.map((d) => d.id)).size).toBe(1);
    expect(seen[0]!.body).toMatchObject({
      type: 'fire.finished',
      taskId,
      taskName: 'hook /flaky',
      userId: 'alice',
      kind: 'manual',
      status: 'succeeded',
      result: { ok: true },
      error: null,
    });
  });

  it('a receiver with another secret cannot verify it, and a tampered body does not verify', async () => {
    await webhookTask('/strict');
    await r.servers[0]!.webhooks.deliverDue();
    const [delivery] = of('/strict');
    expect(delivery!.verified).toBe(true);
    const headers = { id: delivery!.id, timestamp: String(Math.floor(r.clock.now() / 1000)), signature: 'v1,AAAA' };
    expect(
      verifyWebhook('whsec_other', headers, JSON.stringify(delivery!.body), Math.floor(r.clock.now() / 1000)),
    ).toBe(false);
  });

  it('a 4xx answer is final; the delivery is not repeated', async () => {
    script.set('/gone', [410]);
    await webhookTask('/gone');
    await r.servers[0]!.webhooks.deliverDue();
    r.clock.advance(600_000);
    await r.servers[0]!.webhooks.deliverDue();
    expect(of('/gone')).toHaveLength(1);
  });

  it('refuses a webhook without a url', async () => {
    const error = await rejection(
      r.client.rpc.createTask({
        tenantId: 'acme',
        userId: '',
        requestId: '',
        specJson: JSON.stringify({
          trigger: { type: 'schedule', cron: '0 0 1 1 *' },
          executor: 'x',
          output: { channel: 'webhook' },
        }),
      }),
    );
    expect(error.message).toBe('output.url: the webhook channel needs a url');
  });
});
