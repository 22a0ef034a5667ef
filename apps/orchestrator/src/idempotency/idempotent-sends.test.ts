// Idempotent sends through the real orchestrator (issue 37, item 2): two orchestrator replicas on
// one Postgres, NATS and Redis, llm-sim as the model; every call goes through the
// OrchestratorService gRPC server as the api makes it, with an Idempotency-Key.
import { createHash, randomUUID } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';
import { orchestratorV1 } from '@platform/proto';
import { createGrpcClient, createLogger, MutualTlsTransport, type GrpcClientHandle } from '@platform/service-kit';
import { startNatsServer, startPlatform, type NatsServerHandle, type Platform } from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyKeys } from './idempotency-keys.js';
import { RUN_ID_HEADER } from './run-id-header.js';
import { handleMessageRequest } from '../test-support/handle-message-request.js';

let nats: NatsServerHandle;
let platform: Platform;
let pool: pg.Pool;
const orchestrators: GrpcClientHandle<orchestratorV1.OrchestratorServiceClient>[] = [];

beforeAll(async () => {
  nats = await startNatsServer();
  const databaseUrl = await createSuiteDatabase('idempotent_sends');
  platform = await startPlatform({
    natsUrl: nats.url,
    databaseUrl,
    redisUrl: await allocateSuiteRedis(),
    jwtSecret: 'idempotent-sends-secret-idempotent-sends',
    apps: ['llm-sim', 'memory', 'tool-runner', 'agent-pool', 'orchestrator'],
    orchestratorReplicas: 2,
    mode: 'source',
    readyTimeoutMs: 90_000,
    env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } },
  });
  pool = new pg.Pool({ connectionString: databaseUrl, max: 2, options: '-c search_path=orchestrator' });
  for (const port of platform.orchestratorPorts) {
    const transport = new MutualTlsTransport(await platform.pki.issue('api'));
    orchestrators.push(
      createGrpcClient(
        orchestratorV1.OrchestratorServiceClient,
        orchestratorV1.OrchestratorServiceService,
        `127.0.0.1:${port}`,
        { defaultDeadlineMs: 60_000, transport, server: 'orchestrator' },
      ),
    );
  }
}, 240_000);

afterAll(async () => {
  for (const client of orchestrators) client.close();
  await pool?.end();
  await platform?.stop();
  await nats?.stop();
});

const fingerprintOf = (text: string) => createHash('sha256').update(text).digest('hex');

interface Send {
  tenantId: string;
  conversationId: string;
  content: string;
  key: string;
  /** Defaults to the content's digest (the same body). */
  fingerprint?: string;
  replica?: number;
  onHeaders?: (headers: Metadata) => void;
}

/** A keyed message as the api sends it, each send under a run id of its own (as two api replicas would). */
function send(s: Send) {
  return orchestrators[s.replica ?? 0]!.rpc.handleMessage(
    handleMessageRequest({
      tenantId: s.tenantId,
      conversationId: s.conversationId,
      content: s.content,
      idempotencyKey: s.key,
      requestFingerprint: s.fingerprint ?? fingerprintOf(s.content),
    }),
    { deadlineMs: 60_000, ...(s.onHeaders ? { onHeaders: s.onHeaders } : {}) },
  );
}

async function failure(promise: Promise<unknown>): Promise<{ kind: string; code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    return err as { kind: string; code: string; message: string };
  }
  throw new Error('expected the call to fail');
}

interface SimRequest {
  structuredReply: string | null;
  body: { messages: { role: string; content: string | null }[] };
}

/** The turns that reached the model (their first model call: the user's message last; not memory's calls) whose message holds `tag`. */
async function turnsFor(tag: string): Promise<number> {
  const { requests } = (await (await fetch(`${platform.llmSimUrl}/_sim/requests`)).json()) as {
    requests: SimRequest[];
  };
  return requests.filter((r) => {
    const last = r.body.messages.at(-1);
    return r.structuredReply === null && last?.role === 'user' && (last.content ?? '').includes(tag);
  }).length;
}

async function keyRow(tenantId: string, key: string): Promise<{ run_id: string } | undefined> {
  const { rows } = await pool.query<{ run_id: string }>(
    'SELECT run_id FROM idempotency_keys WHERE tenant_id = $1 AND idempotency_key = $2',
    [tenantId, key],
  );
  return rows[0];
}

const tenant = () => `idem-${randomUUID().slice(0, 8)}`;

describe('idempotent sends', () => {
  it('answers a repeat, on either replica, with the run the first send started: one turn', async () => {
    const tenantId = tenant();
    const tag = `repeat-${randomUUID()}`;
    const first = await send({ tenantId, conversationId: 'conv-1', content: `What is 2 + 2? ${tag}`, key: 'k-1' });
    expect(first.status).toBe('completed');
    const again = await send({ tenantId, conversationId: 'conv-1', content: `What is 2 + 2? ${tag}`, key: 'k-1' });
    const elsewhere = await send({
      tenantId,
      conversationId: 'conv-1',
      content: `What is 2 + 2? ${tag}`,
      key: 'k-1',
      replica: 1,
    });
    for (const repeat of [again, elsewhere]) {
      expect(repeat.runId).toBe(first.runId);
      expect(repeat.response).toBe(first.response);
      expect(repeat.status).toBe('completed');
    }
    expect(await turnsFor(tag)).toBe(1);
    expect((await keyRow(tenantId, 'k-1'))?.run_id).toBe(first.runId);
  });

  it('refuses the same key with another body or in another conversation (IDEMPOTENCY_KEY_REUSED), starting nothing', async () => {
    const tenantId = tenant();
    const tag = `reused-${randomUUID()}`;
    const first = await send({ tenantId, conversationId: 'conv-1', content: `Hello ${tag}`, key: 'k-2' });
    const otherBody = await failure(
      send({ tenantId, conversationId: 'conv-1', content: `Goodbye ${tag}`, key: 'k-2', replica: 1 }),
    );
    expect(otherBody).toMatchObject({ kind: 'failed_precondition', code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(otherBody.message).toContain(first.runId);
    // The same body in another conversation is another request too.
    const otherConversation = await failure(
      send({ tenantId, conversationId: 'conv-2', content: `Hello ${tag}`, key: 'k-2' }),
    );
    expect(otherConversation).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await turnsFor(tag)).toBe(1);
  });

  it("keeps tenants' keys apart: another tenant's same key is a key of its own", async () => {
    const [a, b] = [tenant(), tenant()];
    const tag = `tenants-${randomUUID()}`;
    const ofA = await send({ tenantId: a, conversationId: 'conv-1', content: `Hi ${tag}`, key: 'shared-key' });
    // The same key and even a different body: tenant b's key is new, not a reuse of a's.
    const ofB = await send({ tenantId: b, conversationId: 'conv-1', content: `Hey ${tag}`, key: 'shared-key' });
    expect(ofB.runId).not.toBe(ofA.runId);
    expect(ofB.status).toBe('completed');
    expect(await turnsFor(tag)).toBe(2);
    expect((await keyRow(a, 'shared-key'))?.run_id).toBe(ofA.runId);
    expect((await keyRow(b, 'shared-key'))?.run_id).toBe(ofB.runId);
  });

  it('treats an expired key as new (the next send takes it over), and the sweep deletes expired keys', async () => {
    const tenantId = tenant();
    const tag = `expiry-${randomUUID()}`;
    const first = await send({ tenantId, conversationId: 'conv-1', content: `One ${tag}`, key: 'k-3' });
    await pool.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND idempotency_key = $2`,
      [tenantId, 'k-3'],
    );
    // Expired, the key names nothing: a different body is a new message, not a reuse.
    const second = await send({ tenantId, conversationId: 'conv-1', content: `Two ${tag}`, key: 'k-3', replica: 1 });
    expect(second.runId).not.toBe(first.runId);
    expect(second.status).toBe('completed');
    expect((await keyRow(tenantId, 'k-3'))?.run_id).toBe(second.runId);

    await pool.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND idempotency_key = $2`,
      [tenantId, 'k-3'],
    );
    const keys = new IdempotencyKeys(pool, {
      sweepIntervalMs: 60_000,
      sweepBatch: 1,
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
    expect(await keys.find(tenantId, 'k-3')).toBeUndefined();
    expect(await keys.sweep()).toBeGreaterThanOrEqual(1);
    expect(await keyRow(tenantId, 'k-3')).toBeUndefined();
  });

  it('makes a repeat sent while the first run is in flight wait for that run and answer with its result', async () => {
    const tenantId = tenant();
    const tag = `inflight-${randomUUID()}`;
    const content = `Tell me a fact ${tag}`;
    // The model holds its answers until the window is closed: the first run stays in flight.
    await fetch(`${platform.llmSimUrl}/_sim/fault-window`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'hang', durationMs: 120_000 }),
    });
    try {
      const first = send({ tenantId, conversationId: 'conv-1', content, key: 'k-4' });
      while ((await turnsFor(tag)) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      // The repeat, on the other replica, is told which run answers it before that run ends.
      let announced!: (runId: string) => void;
      const waitingOn = new Promise<string>((resolve) => (announced = resolve));
      let settled = false;
      const repeat = send({
        tenantId,
        conversationId: 'conv-1',
        content,
        key: 'k-4',
        replica: 1,
        onHeaders: (h) => announced(String(h.get(RUN_ID_HEADER)[0] ?? '')),
      }).finally(() => (settled = true));
      const announcedRunId = await waitingOn;
      expect(settled).toBe(false);
      await fetch(`${platform.llmSimUrl}/_sim/fault-window`, { method: 'DELETE' });
      const [a, b] = await Promise.all([first, repeat]);
      expect(announcedRunId).toBe(a.runId);
      expect(b.runId).toBe(a.runId);
      expect(b.response).toBe(a.response);
      expect(b.status).toBe('completed');
      expect(await turnsFor(tag)).toBe(1);
    } finally {
      await fetch(`${platform.llmSimUrl}/_sim/fault-window`, { method: 'DELETE' });
    }
  });

  it('refuses a malformed key or a key without a fingerprint (INVALID_IDEMPOTENCY_KEY)', async () => {
    const tenantId = tenant();
    for (const key of ['has space', 'x'.repeat(256), 'ключ']) {
      expect(await failure(send({ tenantId, conversationId: 'conv-1', content: 'Hi', key }))).toMatchObject({
        kind: 'invalid_argument',
        code: 'INVALID_IDEMPOTENCY_KEY',
      });
    }
    expect(
      await failure(send({ tenantId, conversationId: 'conv-1', content: 'Hi', key: 'k-5', fingerprint: 'abc' })),
    ).toMatchObject({ code: 'INVALID_IDEMPOTENCY_KEY' });
    expect(await keyRow(tenantId, 'k-5')).toBeUndefined();
  });
});
