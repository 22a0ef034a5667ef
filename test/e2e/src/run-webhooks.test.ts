// Webhooks when a run ends, through the real services (api, orchestrator, memory, agent pool, a
// tool runner, llm-sim): a message's `webhook` receives the run's result signed with the tenant's
// secret (read by an admin from the api), its delivery is listed for a viewer, a 500 is retried
// under the same webhook-id, a conversation's `webhookUrl` receives the end of its runs whose
// message names none (a message's URL winning over it), and a URL that reaches inside is refused
// with a typed 400. The
// receiver is a real HTTP server on loopback, which this suite's egress allowlist admits.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, waitFor, type Caller, type SuitePlatform, type TurnJson } from './support.js';

const TENANT = 'run-webhooks-tenant';
const ADMIN: Caller = { tenant: TENANT, roles: ['admin'] };
const VIEWER: Caller = { tenant: TENANT, roles: ['viewer'] };

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
interface DeliveryJson {
  deliveryId: string;
  runStatus: string;
  status: string;
  attempts: number;
  lastError: string | null;
  url: string;
}

const received: Received[] = [];
/** Paths answered 500 on their first attempt. */
const failFirst = new Set<string>();
let receiver: Server;
let receiverUrl: string;
let platform: SuitePlatform;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body });
      res.writeHead(failFirst.delete(path) ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  platform = await bootPlatform('run_webhooks', {
    env: {
      orchestrator: {
        RUN_WEBHOOK_ALLOW_HTTP: 'true',
        EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
        RUN_WEBHOOK_RETRY_BASE_MS: '200',
        RUN_WEBHOOK_INTERVAL_MS: '50',
      },
    },
  });
  // Eight services boot one after another: on a loaded machine that takes longer than the hook's default.
}, 300_000);
afterAll(async () => {
  await platform?.stop();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

async function settled(runId: string): Promise<DeliveryJson[]> {
  return waitFor(`the webhook deliveries of ${runId}`, async () => {
    const listed = await api<{ deliveries: DeliveryJson[] }>(
      platform,
      'GET',
      `/v1/runs/${runId}/webhook-deliveries`,
      VIEWER,
    );
    expect(listed.status).toBe(200);
    const { deliveries } = listed.body;
    return deliveries.length > 0 && deliveries.every((d) => d.status === 'delivered' || d.status === 'failed')
      ? deliveries
      : undefined;
  });
}

describe('webhooks when a run ends', () => {
  it("POSTs the run's result signed with the tenant's secret, retries a 500 under one id, and lists it", async () => {
    failFirst.add('/hooks/a');
    const sent = await api<TurnJson>(platform, 'POST', '/v1/conversations/hooks-1/messages', TENANT, {
      content: '[scenario:plain] tell me when you are done',
      webhook: { url: `${receiverUrl}/hooks/a` },
    });
    expect(sent.status).toBe(200);
    const [delivery] = await settled(sent.body.runId);
    expect(delivery).toMatchObject({ runStatus: 'completed', status: 'delivered', attempts: 2, lastError: null });
    const got = received.filter((r) => r.path === '/hooks/a');
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([delivery!.deliveryId, delivery!.deliveryId]);

    // The secret is an admin's to read; a viewer is refused.
    expect((await api(platform, 'GET', '/v1/webhook-settings', VIEWER)).status).toBe(403);
    const settings = await api<{ secret: string }>(platform, 'GET', '/v1/webhook-settings', ADMIN);
    expect(settings.status).toBe(200);
    const last = got.at(-1)!;
    const signed = `${String(last.headers['webhook-id'])}.${String(last.headers['webhook-timestamp'])}.${last.body}`;
    const expected = createHmac('sha256', Buffer.from(settings.body.secret)).update(signed).digest('base64');
    expect(String(last.headers['webhook-signature']).split(' ')).toContain(`v1,${expected}`);
    expect(JSON.parse(last.body)).toMatchObject({
      type: 'run.completed',
      data: { runId: sent.body.runId, conversationId: 'hooks-1', status: 'completed', response: sent.body.response },
    });
  });

  it('refuses a webhook URL that reaches inside with 400 EGRESS_REFUSED, for a message and for the settings', async () => {
    const sent = await api<{ error: { code: string; details?: { reason?: string } } }>(
      platform,
      'POST',
      '/v1/conversations/hooks-2/messages',
      TENANT,
      { content: 'hi', webhook: { url: 'http://169.254.169.254/latest/meta-data' } },
    );
    expect(sent.status).toBe(400);
    expect(sent.body.error.code).toBe('EGRESS_REFUSED');
    const set = await api<{ error: { code: string } }>(platform, 'PUT', '/v1/webhook-settings', ADMIN, {
      url: 'http://10.0.0.7/hook',
    });
    expect(set.status).toBe(400);
    expect(set.body.error.code).toBe('EGRESS_REFUSED');
    // Setting the tenant's webhook is an admin's: a member is refused.
    expect((await api(platform, 'PUT', '/v1/webhook-settings', TENANT, { rotateSecret: true })).status).toBe(403);
  });

  it("sends a run's end to its conversation's URL when the message names none; a message's URL wins", async () => {
    const first = await api<TurnJson>(platform, 'POST', '/v1/conversations/hooks-3/messages', TENANT, {
      content: '[scenario:plain] start it',
    });
    expect(first.status).toBe(200);
    const conversationHook = `${receiverUrl}/hooks/conversation?token=t0ps3cret`;
    const set = await api<{ webhookUrl: string | null }>(platform, 'PATCH', '/v1/conversations/hooks-3', TENANT, {
      webhookUrl: conversationHook,
    });
    expect(set.status).toBe(200);
    expect(set.body.webhookUrl).toBe(`${receiverUrl}/hooks/conversation?token=[redacted]`);
    const read = await api<{ webhookUrl: string | null }>(platform, 'GET', '/v1/conversations/hooks-3', VIEWER);
    expect(read.body.webhookUrl).toBe(`${receiverUrl}/hooks/conversation?token=[redacted]`);

    const plain = await api<TurnJson>(platform, 'POST', '/v1/conversations/hooks-3/messages', TENANT, {
      content: '[scenario:plain] no webhook named',
    });
    expect(plain.status).toBe(200);
    const [delivery] = await settled(plain.body.runId);
    expect(delivery).toMatchObject({ status: 'delivered', url: `${receiverUrl}/hooks/conversation?token=[redacted]` });
    const got = received.filter((r) => r.path === '/hooks/conversation?token=t0ps3cret');
    expect(got.map((r) => JSON.parse(r.body) as { data: { runId: string } }).map((b) => b.data.runId)).toEqual([
      plain.body.runId,
    ]);

    const named = await api<TurnJson>(platform, 'POST', '/v1/conversations/hooks-3/messages', TENANT, {
      content: '[scenario:plain] this one names its own',
      webhook: { url: `${receiverUrl}/hooks/message` },
    });
    expect(named.status).toBe(200);
    const [own] = await settled(named.body.runId);
    expect(own).toMatchObject({ status: 'delivered', url: `${receiverUrl}/hooks/message` });
    expect(received.filter((r) => r.path === '/hooks/conversation?token=t0ps3cret')).toHaveLength(1);
    expect(received.filter((r) => r.path === '/hooks/message')).toHaveLength(1);

    // Inside URLs are refused and the URL stays; null clears it.
    for (const url of ['http://10.0.0.7/hook', 'http://169.254.169.254/latest/meta-data']) {
      const refused = await api<{ error: { code: string; details?: { reason?: string } } }>(
        platform,
        'PATCH',
        '/v1/conversations/hooks-3',
        TENANT,
        { webhookUrl: url },
      );
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('EGRESS_REFUSED');
    }
    const kept = await api<{ webhookUrl: string | null }>(platform, 'GET', '/v1/conversations/hooks-3', TENANT);
    expect(kept.body.webhookUrl).toBe(`${receiverUrl}/hooks/conversation?token=[redacted]`);
    const cleared = await api<{ webhookUrl: string | null }>(platform, 'PATCH', '/v1/conversations/hooks-3', TENANT, {
      webhookUrl: null,
    });
    expect(cleared.body.webhookUrl).toBeNull();
    const quiet = await api<TurnJson>(platform, 'POST', '/v1/conversations/hooks-3/messages', TENANT, {
      content: '[scenario:plain] nothing now',
    });
    const none = await api<{ deliveries: DeliveryJson[] }>(
      platform,
      'GET',
      `/v1/runs/${quiet.body.runId}/webhook-deliveries`,
      VIEWER,
    );
    expect(none.body.deliveries).toEqual([]);
  });
});
