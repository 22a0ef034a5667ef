// Webhooks when a run ends, through the real orchestrator (a process on private Postgres, NATS and
// Redis, llm-sim as the model, memory and the agent pool): a message names a receiver (a real HTTP
// server on a free port, on loopback, which this test's egress allowlist admits), the run's end is
// POSTed signed with the tenant's secret, retried with backoff on 500s and on a receiver that does
// not answer in time, and listed; URLs that reach inside are refused when they are set.
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { orchestratorV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport, type GrpcClientHandle } from '@platform/service-kit';
import { startNatsServer, startPlatform, type NatsServerHandle, type Platform } from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleMessageRequest } from '../test-support/handle-message-request.js';

const RETRY_BASE_MS = 300;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  atMs: number;
}

/** What the receiver answers, per path, attempt by attempt (a status, or 'hang'); 200 past the script. */
const scripts = new Map<string, (number | 'hang')[]>();
const received: Received[] = [];
const hanging: ServerResponse[] = [];
let receiver: Server;
let receiverUrl: string;
let nats: NatsServerHandle;
let platform: Platform;
let client: GrpcClientHandle<orchestratorV1.OrchestratorServiceClient>;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body, atMs: Date.now() });
      const next = scripts.get(path)?.shift() ?? 200;
      if (next === 'hang') hanging.push(res);
      else res.writeHead(next).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  nats = await startNatsServer();
  platform = await startPlatform({
    natsUrl: nats.url,
    databaseUrl: await createSuiteDatabase('run_webhooks'),
    redisUrl: await allocateSuiteRedis(),
    jwtSecret: 'run-webhooks-secret-run-webhooks-secret',
    apps: ['llm-sim', 'memory', 'agent-pool', 'orchestrator'],
    mode: 'source',
    readyTimeoutMs: 90_000,
    env: {
      orchestrator: {
        RATE_LIMIT_TURNS_PER_MINUTE: '0',
        // The test's receiver is on loopback over plain http: admitted here, refused by default.
        RUN_WEBHOOK_ALLOW_HTTP: 'true',
        EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
        RUN_WEBHOOK_TIMEOUT_MS: '1000',
        RUN_WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
        RUN_WEBHOOK_MAX_ATTEMPTS: '4',
        RUN_WEBHOOK_INTERVAL_MS: '50',
      },
    },
  });
  const transport = new MutualTlsTransport(await platform.pki.issue('api'));
  client = createGrpcClient(
    orchestratorV1.OrchestratorServiceClient,
    orchestratorV1.OrchestratorServiceService,
    `127.0.0.1:${platform.orchestratorPorts[0]}`,
    { defaultDeadlineMs: 30_000, transport, server: 'orchestrator' },
  );
}, 240_000);

afterAll(async () => {
  client?.close();
  for (const res of hanging) res.destroy();
  await platform?.stop();
  await nats?.stop();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

function message(tenantId: string, content: string, more: Partial<orchestratorV1.HandleMessageRequest> = {}) {
  return client.rpc.handleMessage(
    handleMessageRequest({ tenantId, conversationId: `conv-${randomUUID()}`, content, ...more }),
    { deadlineMs: 60_000 },
  );
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected the call to fail');
}

/** The run's deliveries once they are settled (delivered or failed), read back through the API. */
async function settledDeliveries(tenantId: string, runId: string): Promise<orchestratorV1.RunWebhookDelivery[]> {
  for (let i = 0; i < 600; i++) {
    const { deliveries } = await client.rpc.listRunWebhookDeliveries({ tenantId, runId });
    if (deliveries.length > 0 && deliveries.every((d) => d.status === 'delivered' || d.status === 'failed'))
      return deliveries;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the deliveries of ${runId} did not settle`);
}

/** Standard Webhooks verification written from the spec (HMAC-SHA256 of id.timestamp.body under the key's bytes). */
function specVerifies(secret: string, got: Received): boolean {
  const id = String(got.headers['webhook-id']);
  const timestamp = String(got.headers['webhook-timestamp']);
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${id}.${timestamp}.${got.body}`)
    .digest('base64');
  return String(got.headers['webhook-signature'])
    .split(' ')
    .some((entry) => entry === `v1,${expected}`);
}

describe('run webhooks', () => {
  it("delivers a completed run's result signed with the tenant's secret, once, and lists the delivery", async () => {
    const tenant = `t-${randomUUID()}`;
    const path = `/done-${randomUUID()}`;
    const run = await message(tenant, '[scenario:plain] hello hooks', { webhookUrl: `${receiverUrl}${path}` });
    expect(run.status).toBe('completed');
    const [delivery] = await settledDeliveries(tenant, run.runId);
    expect(delivery).toMatchObject({ runId: run.runId, runStatus: 'completed', status: 'delivered', attempts: 1 });
    const got = received.filter((r) => r.path === path);
    expect(got).toHaveLength(1);
    expect(got[0]!.headers['webhook-id']).toBe(delivery!.deliveryId);
    const { settings } = await client.rpc.getWebhookSettings({ tenantId: tenant });
    expect(specVerifies(settings!.secret, got[0]!)).toBe(true);
    expect(specVerifies(`${settings!.secret}x`, got[0]!)).toBe(false);
    const body = JSON.parse(got[0]!.body) as { type: string; data: Record<string, unknown> };
    expect(body.type).toBe('run.completed');
    expect(body.data).toMatchObject({
      runId: run.runId,
      status: 'completed',
      stopReason: 'final_answer',
      response: run.response,
      usage: { totalTokens: run.usage!.totalTokens },
    });
    // Another tenant sees none of it.
    const other = await client.rpc.listRunWebhookDeliveries({ tenantId: `t-${randomUUID()}`, runId: run.runId });
    expect(other.deliveries).toEqual([]);
  });

  it('retries 500s and a receiver that does not answer in time with backoff, under one webhook-id', async () => {
    const tenant = `t-${randomUUID()}`;
    const path = `/flaky-${randomUUID()}`;
    scripts.set(path, [500, 'hang', 500]);
    const run = await message(tenant, '[scenario:plain] retry me', { webhookUrl: `${receiverUrl}${path}` });
    const [delivery] = await settledDeliveries(tenant, run.runId);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 4, lastError: '' });
    const got = received.filter((r) => r.path === path);
    expect(got).toHaveLength(4);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery!.deliveryId]));
    // Each retry waits at least its backoff: base, 2×base, 4×base after the attempt before it ended.
    expect(got[1]!.atMs - got[0]!.atMs).toBeGreaterThanOrEqual(RETRY_BASE_MS);
    expect(got[3]!.atMs - got[2]!.atMs).toBeGreaterThanOrEqual(4 * RETRY_BASE_MS);
  });

  it("sends a failed run's end to the tenant's default URL, and stops at a final 4xx", async () => {
    const tenant = `t-${randomUUID()}`;
    const path = `/default-${randomUUID()}`;
    scripts.set(path, [410]);
    const { settings } = await client.rpc.updateWebhookSettings({
      tenantId: tenant,
      url: `${receiverUrl}${path}`,
      rotateSecret: false,
    });
    expect(settings!.url).toBe(`${receiverUrl}${path}`);
    const run = await message(tenant, '[scenario:auth-failure] this fails');
    expect(run.status).toBe('failed');
    const [delivery] = await settledDeliveries(tenant, run.runId);
    expect(delivery).toMatchObject({ runStatus: 'failed', status: 'failed', attempts: 1, lastError: 'HTTP 410' });
    const got = received.filter((r) => r.path === path);
    expect(got).toHaveLength(1);
    expect(JSON.parse(got[0]!.body)).toMatchObject({
      type: 'run.failed',
      data: { runId: run.runId, status: 'failed' },
    });
    // Cleared: the next run sends nothing.
    await client.rpc.updateWebhookSettings({ tenantId: tenant, url: '', rotateSecret: false });
    const quiet = await message(tenant, '[scenario:plain] no hook');
    expect((await client.rpc.listRunWebhookDeliveries({ tenantId: tenant, runId: quiet.runId })).deliveries).toEqual(
      [],
    );
  });

  it('rotates the secret on request: deliveries after it are signed with the new one', async () => {
    const tenant = `t-${randomUUID()}`;
    const before = (await client.rpc.getWebhookSettings({ tenantId: tenant })).settings!;
    expect(before.secret).toMatch(/^whsec_/);
    expect((await client.rpc.getWebhookSettings({ tenantId: tenant })).settings!.secret).toBe(before.secret);
    const after = (await client.rpc.updateWebhookSettings({ tenantId: tenant, rotateSecret: true })).settings!;
    expect(after.secret).not.toBe(before.secret);
    const path = `/rotated-${randomUUID()}`;
    const run = await message(tenant, '[scenario:plain] rotated', { webhookUrl: `${receiverUrl}${path}` });
    await settledDeliveries(tenant, run.runId);
    const got = received.find((r) => r.path === path)!;
    expect(specVerifies(after.secret, got)).toBe(true);
    expect(specVerifies(before.secret, got)).toBe(false);
  });

  it('refuses URLs that reach inside, or are not http(s), when they are set, and starts no run', async () => {
    const tenant = `t-${randomUUID()}`;
    for (const url of ['http://10.1.2.3/hook', 'http://169.254.169.254/latest', 'http://[::1]:8080/x']) {
      const runId = `run_${randomUUID()}`;
      expect(await failure(message(tenant, '[scenario:plain] x', { webhookUrl: url, runId }))).toMatchObject({
        code: 'EGRESS_REFUSED',
      });
      expect(await failure(client.rpc.getRun({ tenantId: tenant, runId }))).toMatchObject({ code: 'RUN_NOT_FOUND' });
      expect(
        await failure(client.rpc.updateWebhookSettings({ tenantId: tenant, url, rotateSecret: false })),
      ).toMatchObject({ code: 'EGRESS_REFUSED' });
    }
    expect(await failure(message(tenant, '[scenario:plain] x', { webhookUrl: 'ftp://example.com/x' }))).toMatchObject({
      code: 'INVALID_WEBHOOK_URL',
    });
    expect((await client.rpc.getWebhookSettings({ tenantId: tenant })).settings!.url).toBe('');
  });
});
