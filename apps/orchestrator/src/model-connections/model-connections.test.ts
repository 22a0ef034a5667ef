// The model connections port through real services: a connection created through the api (its
// own process) is stored by the credential service (its own process), resolved by the port over
// gRPC as the orchestrator's identity, and called at a second llm-sim process that checks the
// tenant's API key. Another tenant's lookup of the same name finds nothing; a key rotated
// through the api reaches the port through the change notice; a URL that reaches inside is
// refused at write, and again at call time when the orchestrator's guard does not admit it.
import type { ModelRequest } from '@platform/agent-loop';
import { compileEgressAllowlist, EgressGuard, egressRefusalOf } from '@platform/egress';
import { credentialV1 } from '@platform/proto';
import {
  connectNats,
  createGrpcClient,
  createLogger,
  MutualTlsTransport,
  type GrpcClientHandle,
  type NatsConnection,
} from '@platform/service-kit';
import {
  freePort,
  startPlatform,
  startServiceProcess,
  testCertificates,
  type Platform,
  type ServiceProcess,
} from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase, sharedInfra } from '@platform/testing/vitest';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionCache } from './connection-cache.js';
import { CredentialModelConnections } from './credential-model-connections.js';

const logger = createLogger({ service: 'model-connections-test', level: 'silent' });
const JWT_SECRET = 'model-connections-secret-0123456789abcdef';
const TENANT_KEY = 'sk-tenant-endpoint-key-0123456789';
const LOOPBACK_ONLY = compileEgressAllowlist({ EGRESS_ALLOW_HOSTS: [], EGRESS_ALLOW_CIDRS: ['127.0.0.1/32'] });

let platform: Platform;
let endpoint: ServiceProcess;
let endpointUrl: string;
let nc: NatsConnection;
let credential: GrpcClientHandle<credentialV1.CredentialServiceClient>;
const guards: EgressGuard[] = [];
const listeners: Array<{ stop(): void }> = [];

beforeAll(async () => {
  nc = await connectNats({ servers: sharedInfra().natsUrl, name: 'model-connections-test', logger });
  platform = await startPlatform({
    apps: ['credential', 'api'],
    mode: 'source',
    natsUrl: sharedInfra().natsUrl,
    databaseUrl: await createSuiteDatabase('model_connections_port'),
    redisUrl: await allocateSuiteRedis(),
    jwtSecret: JWT_SECRET,
    // The tenant's endpoint below listens on loopback: the operator admits exactly that address.
    env: { credential: { EGRESS_ALLOW_CIDRS: '127.0.0.1/32' } },
  });
  endpoint = await startServiceProcess({
    app: 'llm-sim',
    mode: 'source',
    telemetry: false,
    env: { LLM_SIM_PORT: String(await freePort()), LLM_SIM_API_KEY: TENANT_KEY, LOG_LEVEL: 'warn' },
  });
  endpointUrl = `${String(endpoint.ready['url'])}/v1`;
  credential = createGrpcClient(
    credentialV1.CredentialServiceClient,
    credentialV1.CredentialServiceService,
    `127.0.0.1:${platform.ports.credential}`,
    {
      defaultDeadlineMs: 5_000,
      transport: new MutualTlsTransport(await testCertificates('orchestrator')),
      server: 'credential',
    },
  );
}, 120_000);
afterAll(async () => {
  listeners.forEach((l) => l.stop());
  await Promise.all(guards.map((g) => g.close()));
  credential?.close();
  await endpoint?.stop();
  await platform?.stop();
  await nc?.close();
});

/** A replica's port: its own cache hearing change notices, its own egress guard. */
async function replicaPort(allowlist = LOOPBACK_ONLY) {
  const cache = new ConnectionCache({ maxEntries: 100, ttlMs: 600_000 });
  const listening = cache.listen(nc, logger);
  listeners.push(listening);
  await listening.ready;
  const egress = new EgressGuard({ allowlist });
  guards.push(egress);
  const port = new CredentialModelConnections({
    client: credential.rpc,
    platformToken: platform.credentialKeys.platformToken,
    cache,
    egress,
    tiers: { tiers: { off: { modelConnections: 0 } }, defaultTier: 'default' },
    modelTimeoutMs: 10_000,
  });
  return { port, cache };
}

async function api(method: string, path: string, tenant: string, body?: unknown) {
  // An admin: model connections' writes need that role (docs/access.md).
  const token = await new SignJWT({ tenant, sub: `${tenant}-user`, roles: ['admin'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  const response = await fetch(`${platform.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const hello: ModelRequest = { messages: [{ role: 'user', content: 'hello' }], tools: [], toolChoice: 'auto' };

async function simRequestCount(): Promise<number> {
  const response = await fetch(`${endpointUrl.replace(/\/v1$/, '')}/_sim/requests`);
  return ((await response.json()) as { requests: unknown[] }).requests.length;
}

async function eventually(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${what} did not happen`);
}

describe('the model connections port', () => {
  it("calls the tenant's endpoint with the tenant's key, and finds nothing for another tenant", async () => {
    const created = await api('POST', '/v1/model-connections', 'acme', {
      name: 'own-llm',
      baseUrl: endpointUrl,
      apiKey: TENANT_KEY,
      models: ['sim-1'],
    });
    expect(created.status).toBe(201);
    const { port } = await replicaPort();
    const connection = await port.resolve('acme', 'own-llm', { runId: 'run-1' });
    expect(connection).toMatchObject({ name: 'own-llm', baseUrl: endpointUrl, apiKey: TENANT_KEY, models: ['sim-1'] });
    const before = await simRequestCount();
    const answer = await port.chatModel(connection!, 'sim-1').complete(hello);
    expect(answer.message.role).toBe('assistant');
    expect(await simRequestCount()).toBe(before + 1);

    // The same name in another tenant: nothing, and nothing is cached for it either.
    expect(await port.resolve('globex', 'own-llm')).toBeUndefined();
    expect(await port.resolve('globex', 'own-llm')).toBeUndefined();
    // Through the agent store's model: a model the connection does not list never reaches the endpoint.
    const other = await port.modelFor('acme', 'own-llm', 'not-served');
    await expect(other.complete(hello)).rejects.toMatchObject({ kind: 'bad_request' });
    expect(await simRequestCount()).toBe(before + 1);
    // A tier with connections turned off gets none, though the connection is cached.
    await expect(port.resolve('acme', 'own-llm', { tier: 'off' })).rejects.toMatchObject({
      code: 'NOT_PERMITTED_BY_TIER',
    });
  });

  it('drops a cached connection when its key is rotated through the api, on every replica', async () => {
    await api('POST', '/v1/model-connections', 'rotator', { name: 'llm', baseUrl: endpointUrl, apiKey: TENANT_KEY });
    const replicas = [await replicaPort(), await replicaPort()];
    for (const { port } of replicas) {
      const connection = await port.resolve('rotator', 'llm');
      await port.chatModel(connection!, 'sim-1').complete(hello);
    }
    // What a compiled agent version holds: it keeps the model object, and must still follow the key.
    const held = await replicas[0]!.port.modelFor('rotator', 'llm', 'sim-1');
    await held.complete(hello);
    expect(await replicas[0]!.port.exists('rotator', 'default', 'llm')).toBe(true);
    expect(await replicas[0]!.port.exists('someone-else', 'default', 'llm')).toBe(false);
    await expect(replicas[0]!.port.exists('rotator', 'off', 'llm')).rejects.toMatchObject({
      code: 'NOT_PERMITTED_BY_TIER',
    });
    // A wrong key: the endpoint must refuse the next call of every replica.
    const rotated = await api('PUT', '/v1/model-connections/llm', 'rotator', {
      baseUrl: endpointUrl,
      apiKey: 'sk-not-the-endpoints-key-0000',
    });
    expect(rotated.status).toBe(200);
    for (const { cache } of replicas)
      await eventually('the change notice', () => cache.get('rotator', 'llm') === undefined);
    for (const { port } of replicas) {
      const connection = await port.resolve('rotator', 'llm');
      expect(connection?.apiKey).toBe('sk-not-the-endpoints-key-0000');
      await expect(port.chatModel(connection!, 'sim-1').complete(hello)).rejects.toMatchObject({ kind: 'auth' });
    }
    await expect(held.complete(hello)).rejects.toMatchObject({ kind: 'auth' });
    // Deleted: gone for the port as soon as the notice arrives.
    expect((await api('DELETE', '/v1/model-connections/llm', 'rotator')).status).toBe(204);
    for (const { cache, port } of replicas) {
      await eventually('the delete notice', () => cache.get('rotator', 'llm') === undefined);
      expect(await port.resolve('rotator', 'llm')).toBeUndefined();
    }
    await expect(held.complete(hello)).rejects.toMatchObject({
      kind: 'auth',
      message: expect.stringContaining('does not exist'),
    });
  });

  it('refuses a loopback or private URL at write, and a URL the guard does not admit at call time', async () => {
    const port = Number(new URL(endpointUrl).port);
    for (const [baseUrl, reason] of [
      [`http://localhost:${port}/v1`, 'loopback'],
      [`http://127.0.0.2:${port}/v1`, 'loopback'],
      ['http://10.20.30.40/v1', 'private'],
    ] as const) {
      const refused = await api('POST', '/v1/model-connections', 'inside', {
        name: 'llm',
        baseUrl,
        apiKey: TENANT_KEY,
      });
      expect(refused, baseUrl).toMatchObject({
        status: 400,
        body: { error: { code: 'EGRESS_REFUSED', details: { reason } } },
      });
    }
    // Admitted by the credential service's allowlist when written, but this replica's operator
    // admits nothing: the connection is refused when it opens, and no request reaches the endpoint.
    await api('POST', '/v1/model-connections', 'inside', { name: 'llm', baseUrl: endpointUrl, apiKey: TENANT_KEY });
    const strict = await replicaPort(compileEgressAllowlist({ EGRESS_ALLOW_HOSTS: [], EGRESS_ALLOW_CIDRS: [] }));
    const connection = await strict.port.resolve('inside', 'llm');
    const before = await simRequestCount();
    const failure = await strict.port
      .chatModel(connection!, 'sim-1')
      .complete(hello)
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(egressRefusalOf(failure)?.reason).toBe('loopback');
    expect(await simRequestCount()).toBe(before);
  });
});
