import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Metadata } from '@grpc/grpc-js';
import { credentialV1 } from '@platform/proto';
import {
  createGrpcClient,
  createLogger,
  MutualTlsTransport,
  type GrpcClientHandle,
  type PromiseClient,
} from '@platform/service-kit';
import { sharedServicePki, startServiceProcess, testCertificates, type ServiceProcess } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { TokenVerifier } from '../auth.js';
import { CredentialCalls } from '../credential-calls.js';
import { noAgentPool, noAgents, noConversations, noEvents, noTrigger } from '../test-support/unavailable-ports.js';

const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const PLATFORM_TOKEN = randomBytes(24).toString('hex');
const logger = createLogger({ service: 'api-test', level: 'silent' });
let credential: ServiceProcess;
let client: GrpcClientHandle<credentialV1.CredentialServiceClient>;
let app: FastifyInstance;
let bare: FastifyInstance;

function appWith(credentials: CredentialCalls | undefined): FastifyInstance {
  return buildApp({
    checkReplies: true,
    logger,
    verifier: new TokenVerifier(SECRET),
    maxBodyBytes: 256 * 1024,
    orchestrator: {} as PromiseClient<never>,
    memory: {} as PromiseClient<never>,
    events: noEvents,
    agentPool: noAgentPool,
    agents: noAgents,
    conversations: noConversations,
    trigger: noTrigger,
    ...(credentials ? { credentials } : {}),
    limits: { maxMessageChars: 100, turnWaitMs: 1_000, sseHeartbeatMs: 1_000 },
    health: { dependencies: {}, probeTimeoutMs: 200, isAccepting: () => true },
  });
}

beforeAll(async () => {
  const { publicKey } = generateKeyPairSync('ed25519');
  credential = await startServiceProcess({
    app: 'credential',
    mode: 'source',
    telemetry: false,
    env: {
      ...(await (await sharedServicePki()).env('credential')),
      DATABASE_URL: await createSuiteDatabase('api_credentials'),
      GRPC_PORT: '0',
      LOG_LEVEL: 'warn',
      CREDENTIAL_KEYRING: JSON.stringify({ active: 'k1', keys: { k1: randomBytes(32).toString('base64') } }),
      CREDENTIAL_GRANT_PUBLIC_KEYS: JSON.stringify({
        keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'g1', alg: 'EdDSA' }],
      }),
      CREDENTIAL_PLATFORM_TOKENS: PLATFORM_TOKEN,
    },
  });
  client = createGrpcClient(
    credentialV1.CredentialServiceClient,
    credentialV1.CredentialServiceService,
    `127.0.0.1:${String(credential.ready['grpcPort'])}`,
    {
      defaultDeadlineMs: 5_000,
      transport: new MutualTlsTransport(await testCertificates('api')),
      server: 'credential',
    },
  );
  app = appWith(new CredentialCalls(client.rpc, PLATFORM_TOKEN));
  bare = appWith(undefined);
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await bare?.close();
  client?.close();
  await credential?.stop();
});

const tokens = new Map<string, string>();
async function auth(tenantId: string): Promise<string> {
  if (!tokens.has(tenantId))
    tokens.set(
      tenantId,
      `Bearer ${await new SignJWT({ tenant: tenantId, sub: `${tenantId}-user` }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(SECRET))}`,
    );
  return tokens.get(tenantId)!;
}

interface AuditEventBody {
  action: string;
  outcome: string;
  service: string;
  actor: Record<string, unknown>;
}
interface ResponseBody {
  error?: { code: string; details?: Record<string, unknown> };
  credential?: Record<string, unknown>;
  credentials?: Array<Record<string, unknown>>;
  events?: AuditEventBody[];
  nextBefore?: number | null;
}

async function call(method: 'GET' | 'PUT' | 'DELETE', url: string, tenantId = 'acme', body?: unknown, target = app) {
  const response = await target.inject({
    method,
    url,
    headers: {
      authorization: await auth(tenantId),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  return { status: response.statusCode, body: response.body ? (JSON.parse(response.body) as ResponseBody) : undefined };
}

const token = { access_token: 'ya29.API-SECRET', refresh_token: 'r-API-SECRET', expires_at: 1_900_000_000 };

describe('credential routes', () => {
  it('stores a token after an OAuth flow, lists it without secrets, and disconnects it', async () => {
    const put = await call('PUT', '/v1/credentials/google/primary', 'acme', { secret: token });
    expect(put).toMatchObject({
      status: 200,
      body: { credential: { service: 'google', account: 'primary', version: 1, keyId: 'k1' } },
    });
    const list = await call('GET', '/v1/credentials');
    expect(list.body?.credentials).toEqual([
      expect.objectContaining({ service: 'google', account: 'primary', version: 1 }),
    ]);
    expect(JSON.stringify(list.body)).not.toContain('SECRET');
    // The stored secret is exactly what was sent (read here the way a granted tool would, as a platform caller).
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${PLATFORM_TOKEN}`);
    // The api never reads a secret back (GetCredential answers runners only): the test reads it as one.
    const reader = createGrpcClient(
      credentialV1.CredentialServiceClient,
      credentialV1.CredentialServiceService,
      `127.0.0.1:${String(credential.ready['grpcPort'])}`,
      {
        defaultDeadlineMs: 5_000,
        transport: new MutualTlsTransport(await testCertificates('runner/test')),
        server: 'credential',
      },
    );
    const stored = await reader.rpc
      .getCredential(
        { tenantId: 'acme', service: 'google', account: 'primary', grant: '', callId: '', actor: undefined },
        { metadata },
      )
      .finally(() => reader.close());
    expect(JSON.parse(stored.secretJson)).toEqual(token);
    expect((await call('DELETE', '/v1/credentials/google/primary')).status).toBe(204);
    expect((await call('GET', '/v1/credentials')).body?.credentials).toEqual([]);
  });

  it('answers another tenant 404 / empty on every route', async () => {
    await call('PUT', '/v1/credentials/github/work', 'acme', { secret: token });
    expect(await call('DELETE', '/v1/credentials/github/work', 'globex')).toMatchObject({
      status: 404,
      body: { error: { code: 'CREDENTIAL_NOT_FOUND' } },
    });
    expect((await call('GET', '/v1/credentials?service=github', 'globex')).body?.credentials).toEqual([]);
    // globex's audit trail holds only globex's own attempts, none of acme's writes.
    const audit = (await call('GET', '/v1/credentials/audit', 'globex')).body?.events ?? [];
    expect(audit.map((e) => `${e.action}:${e.outcome}`)).toEqual(['list:ok', 'delete:not_found']);
    // A version-guarded write of the same name from the other tenant cannot reach acme's record.
    expect(
      (await call('PUT', '/v1/credentials/github/work', 'globex', { secret: token, expectedVersion: 1 })).status,
    ).toBe(409);
    expect((await call('GET', '/v1/credentials?service=github', 'acme')).body?.credentials).toHaveLength(1);
  });

  it('refuses bad names, bodies and sizes with stable codes', async () => {
    expect((await call('PUT', '/v1/credentials/Google!/primary', 'acme', { secret: token })).body?.error?.code).toBe(
      'INVALID_CREDENTIAL_NAME',
    );
    expect((await call('PUT', '/v1/credentials/google/a%20b', 'acme', { secret: token })).body?.error?.code).toBe(
      'INVALID_CREDENTIAL_NAME',
    );
    expect((await call('PUT', '/v1/credentials/google/primary', 'acme', { secret: 'x' })).body?.error?.code).toBe(
      'INVALID_BODY',
    );
    expect(
      (await call('PUT', '/v1/credentials/google/primary', 'acme', { secret: token, extra: 1 })).body?.error?.code,
    ).toBe('INVALID_BODY');
    const big = await call('PUT', '/v1/credentials/google/primary', 'acme', {
      secret: { blob: 'x'.repeat(100 * 1024) },
    });
    expect(big).toMatchObject({ status: 413, body: { error: { code: 'SECRET_TOO_LARGE' } } });
    expect((await call('GET', '/v1/credentials?service=NOPE')).body?.error?.code).toBe('INVALID_QUERY');
    expect((await call('GET', '/v1/credentials/audit?limit=0')).body?.error?.code).toBe('INVALID_QUERY');
    const unauthenticated = await app.inject({ method: 'GET', url: '/v1/credentials' });
    expect(unauthenticated.statusCode).toBe(401);
  });

  it('refuses a stale version with 409 VERSION_CONFLICT', async () => {
    await call('PUT', '/v1/credentials/slack/primary', 'acme', { secret: token, expectedVersion: 0 });
    const stale = await call('PUT', '/v1/credentials/slack/primary', 'acme', { secret: token, expectedVersion: 0 });
    expect(stale).toMatchObject({
      status: 409,
      body: { error: { code: 'VERSION_CONFLICT', details: { currentVersion: 1 } } },
    });
  });

  it('shows the audit trail newest first, naming the api user, never the secret, and pages back', async () => {
    await call('PUT', '/v1/credentials/dropbox/primary', 'audited', { secret: token });
    await call('GET', '/v1/credentials', 'audited');
    await call('DELETE', '/v1/credentials/dropbox/primary', 'audited');
    const page = await call('GET', '/v1/credentials/audit?limit=2', 'audited');
    expect(page.body?.events?.map((e) => `${e.action}:${e.outcome}`)).toEqual(['delete:ok', 'list:ok']);
    expect(page.body?.events?.[0]?.actor).toEqual({ kind: 'user', subject: 'audited-user' });
    expect(JSON.stringify(page.body)).not.toContain('SECRET');
    const older = await call('GET', `/v1/credentials/audit?before=${String(page.body?.nextBefore)}`, 'audited');
    expect(older.body?.events?.map((e) => e.action)).toEqual(['save']);
  });

  it('answers 503 when the deployment has no credential service', async () => {
    expect(await call('GET', '/v1/credentials', 'acme', undefined, bare)).toMatchObject({
      status: 503,
      body: { error: { code: 'CREDENTIALS_UNAVAILABLE' } },
    });
  });
});
