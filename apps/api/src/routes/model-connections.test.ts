// /v1/model-connections through the api with a real credential service process behind it: the
// key is never answered, another tenant gets 404, the tier's quota and a tier without connections
// are refused, a URL that reaches inside is refused with its reason, and every write is announced
// to the orchestrators' caches.
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelConnectionCalls } from '../model-connection-calls.js';
import { credentialEdgeApp, startCredentialEdge, type CredentialEdge } from '../test-support/credential-edge-app.js';

const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const KEY = 'sk-API-SECRET-key-0123456789-WXYZ';
// The tests' endpoints are on loopback: the credential service's allowlist admits that one address.
const URL_OK = 'http://127.0.0.1:9/v1';
let edge: CredentialEdge;
let app: FastifyInstance;
let bare: FastifyInstance;
const announced: string[] = [];

beforeAll(async () => {
  edge = await startCredentialEdge('api_model_connections', {
    EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
    TENANT_TIERS: JSON.stringify({ off: { modelConnections: 0 }, one: { modelConnections: 1 } }),
  });
  app = credentialEdgeApp(SECRET, {
    modelConnections: new ModelConnectionCalls(edge.client.rpc, edge.platformToken, (tenantId, name) =>
      announced.push(`${tenantId}/${name}`),
    ),
  });
  bare = credentialEdgeApp(SECRET, {});
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await bare?.close();
  await edge?.stop();
});

async function auth(tenantId: string, tier?: string): Promise<string> {
  // An admin: model connections' writes need that role (docs/access.md).
  const jwt = await new SignJWT({
    tenant: tenantId,
    sub: `${tenantId}-user`,
    roles: ['admin'],
    ...(tier ? { tier } : {}),
  })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(SECRET));
  return `Bearer ${jwt}`;
}

interface Body {
  error?: { code: string; message: string; details?: Record<string, unknown> };
  connection?: Record<string, unknown>;
  connections?: Array<Record<string, unknown>>;
}

async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  options: { tenant?: string; tier?: string; body?: unknown; target?: FastifyInstance } = {},
) {
  const response = await (options.target ?? app).inject({
    method,
    url,
    headers: {
      authorization: await auth(options.tenant ?? 'acme', options.tier),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
  });
  return {
    status: response.statusCode,
    text: response.body,
    body: response.body ? (JSON.parse(response.body) as Body) : undefined,
  };
}

const connection = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  baseUrl: URL_OK,
  apiKey: KEY,
  models: ['acme-large'],
  ...extra,
});

describe('model connection routes', () => {
  it('creates, lists, reads, rotates and deletes a connection, never answering its key', async () => {
    const created = await call('POST', '/v1/model-connections', { body: connection('acme-llm') });
    expect(created).toMatchObject({
      status: 201,
      body: {
        connection: { name: 'acme-llm', baseUrl: URL_OK, models: ['acme-large'], keyPreview: '…WXYZ', version: 1 },
      },
    });
    const listed = await call('GET', '/v1/model-connections');
    expect(listed.body?.connections?.map((c) => c['name'])).toEqual(['acme-llm']);
    const got = await call('GET', '/v1/model-connections/acme-llm');
    expect(got.body?.connection).toMatchObject({ name: 'acme-llm', keyPreview: '…WXYZ' });
    for (const answer of [created, listed, got]) expect(answer.text).not.toContain('SECRET');

    const rotated = await call('PUT', '/v1/model-connections/acme-llm', {
      body: { baseUrl: URL_OK, apiKey: 'sk-rotated-0000-9999-QRST', models: ['acme-large'], expectedVersion: 1 },
    });
    expect(rotated).toMatchObject({ status: 200, body: { connection: { version: 2, keyPreview: '…QRST' } } });
    // Without a key the stored one stays; models absent means any.
    const moved = await call('PUT', '/v1/model-connections/acme-llm', { body: { baseUrl: 'http://127.0.0.1:10/v2' } });
    expect(moved.body?.connection).toMatchObject({
      version: 3,
      baseUrl: 'http://127.0.0.1:10/v2',
      models: [],
      keyPreview: '…QRST',
    });
    const stale = await call('PUT', '/v1/model-connections/acme-llm', {
      body: { baseUrl: URL_OK, expectedVersion: 1 },
    });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'VERSION_CONFLICT' } } });

    expect((await call('DELETE', '/v1/model-connections/acme-llm')).status).toBe(204);
    expect(await call('GET', '/v1/model-connections/acme-llm')).toMatchObject({
      status: 404,
      body: { error: { code: 'MODEL_CONNECTION_NOT_FOUND' } },
    });
    expect(announced.filter((a) => a === 'acme/acme-llm')).toHaveLength(4);
  });

  it('answers another tenant 404 on every route, and lets it use the same name for its own', async () => {
    await call('POST', '/v1/model-connections', { tenant: 'owner', body: connection('shared') });
    const before = announced.length;
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { baseUrl: URL_OK, apiKey: 'sk-intruder-rotation-1111' }],
      ['DELETE', undefined],
    ] as const) {
      expect(await call(method, '/v1/model-connections/shared', { tenant: 'intruder', body })).toMatchObject({
        status: 404,
        body: { error: { code: 'MODEL_CONNECTION_NOT_FOUND' } },
      });
    }
    // Refused writes announce nothing.
    expect(announced.length).toBe(before);
    expect((await call('GET', '/v1/model-connections', { tenant: 'intruder' })).body?.connections).toEqual([]);
    expect(
      (await call('POST', '/v1/model-connections', { tenant: 'intruder', body: connection('shared') })).status,
    ).toBe(201);
    expect((await call('GET', '/v1/model-connections/shared', { tenant: 'owner' })).body?.connection?.['version']).toBe(
      1,
    );
    expect(await call('POST', '/v1/model-connections', { tenant: 'owner', body: connection('shared') })).toMatchObject({
      status: 409,
      body: { error: { code: 'MODEL_CONNECTION_EXISTS' } },
    });
  });

  it('refuses a URL that reaches inside with 400 EGRESS_REFUSED and its reason, on create and on update', async () => {
    for (const [baseUrl, reason] of [
      ['http://localhost:11434/v1', 'loopback'],
      ['http://127.0.0.53/v1', 'loopback'],
      ['http://10.0.0.7/v1', 'private'],
      ['http://169.254.169.254/v1', 'metadata'],
      ['http://[fd00::1]/v1', 'unique_local'],
    ] as const) {
      const refused = await call('POST', '/v1/model-connections', {
        tenant: 'egress',
        body: connection('llm', { baseUrl }),
      });
      expect(refused, baseUrl).toMatchObject({
        status: 400,
        body: { error: { code: 'EGRESS_REFUSED', details: { reason } } },
      });
      expect(refused.text).not.toContain(baseUrl);
    }
    await call('POST', '/v1/model-connections', { tenant: 'egress', body: connection('llm') });
    const update = await call('PUT', '/v1/model-connections/llm', {
      tenant: 'egress',
      body: { baseUrl: 'http://192.168.0.1/v1' },
    });
    expect(update).toMatchObject({
      status: 400,
      body: { error: { code: 'EGRESS_REFUSED', details: { reason: 'private' } } },
    });
  });

  it('refuses bad input naming the field, and never echoes a key', async () => {
    const cases: Array<[unknown, string]> = [
      [connection('-bad'), 'name'],
      [connection('ok', { apiKey: 'sk SECRET spaced' }), 'apiKey'],
      [connection('ok', { apiKey: '' }), 'apiKey'],
      [connection('ok', { models: 'gpt' }), 'models'],
      [connection('ok', { extra: true }), ''],
      [{ name: 'ok', apiKey: KEY }, 'baseUrl'],
    ];
    for (const [body, field] of cases) {
      const refused = await call('POST', '/v1/model-connections', { tenant: 'fields', body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body?.error?.code).toBe('INVALID_MODEL_CONNECTION');
      if (field) expect(JSON.stringify(refused.body?.error?.details?.['issues'])).toContain(`"${field}`);
      expect(refused.text).not.toContain('SECRET');
    }
    expect((await call('GET', '/v1/model-connections/bad%20name', { tenant: 'fields' })).body?.error?.code).toBe(
      'INVALID_MODEL_CONNECTION',
    );
    expect((await call('GET', '/v1/model-connections', { tenant: 'fields' })).body?.connections).toEqual([]);
  });

  it("holds a tenant to its tier's quota (429) and refuses a tier without connections (403)", async () => {
    expect(
      (await call('POST', '/v1/model-connections', { tenant: 'capped', tier: 'one', body: connection('a') })).status,
    ).toBe(201);
    expect(
      await call('POST', '/v1/model-connections', { tenant: 'capped', tier: 'one', body: connection('b') }),
    ).toMatchObject({
      status: 429,
      body: { error: { code: 'QUOTA_EXCEEDED', details: { quota: 'model_connections', limit: 1, tier: 'one' } } },
    });
    expect(
      await call('POST', '/v1/model-connections', { tenant: 'switched-off', tier: 'off', body: connection('a') }),
    ).toMatchObject({
      status: 403,
      body: { error: { code: 'NOT_PERMITTED_BY_TIER', details: { what: 'modelConnections', tier: 'off' } } },
    });
  });

  it('answers 503 when the deployment has no credential service, and 401 without a token', async () => {
    expect(await call('GET', '/v1/model-connections', { target: bare })).toMatchObject({
      status: 503,
      body: { error: { code: 'CREDENTIALS_UNAVAILABLE' } },
    });
    expect((await app.inject({ method: 'GET', url: '/v1/model-connections' })).statusCode).toBe(401);
  });
});
