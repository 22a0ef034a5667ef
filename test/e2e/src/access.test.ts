// Roles, API keys and the audit through the real services (docs/access.md): an end user's token
// is refused admin routes naming the role; a developer key cannot create keys; a key acts as its
// tenant (rate-limited with it) and for a user, who is then in the audit; a revoked key is
// refused by both api replicas (each caches verified keys for ten minutes here, so only the NATS
// notice can make the second one refuse it); last use is recorded in batches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootPlatform, tokenFor, waitFor, type Caller, type SuitePlatform } from './support.js';

const TENANT = 'access-acme';
const OTHER = 'access-globex';
const ADMIN: Caller = { tenant: TENANT, roles: ['admin'], subject: 'alice-admin' };

let platform: SuitePlatform;

beforeAll(async () => {
  platform = await bootPlatform('access', {
    apiReplicas: 2,
    env: {
      api: { API_KEY_CACHE_MS: '600000', API_KEY_USE_FLUSH_MS: '200' },
      orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '3' },
    },
  });
});
afterAll(async () => platform?.stop());

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T & { error?: { code: string; details?: Record<string, unknown> } };
}

/** A request to one api replica (default the first) with a token or a key. */
async function call<T = Record<string, unknown>>(
  as: Caller | { key: string; user?: string },
  method: string,
  path: string,
  body?: unknown,
  replica = 0,
): Promise<Answer<T>> {
  const bearer = typeof as === 'object' && 'key' in as ? as.key : await tokenFor(as);
  const response = await fetch(`${platform.apiUrls[replica]}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(typeof as === 'object' && 'key' in as && as.user ? { 'platform-user': as.user } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer<T>['body'] };
}

interface KeyJson {
  keyId: string;
  prefix: string;
  role: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
interface ActionJson {
  operation: string;
  resource: string;
  subject: string;
  keyId: string | null;
  actingUser: string | null;
  role: string;
}

async function createKey(name: string, role: string, as: Caller | { key: string; user?: string } = ADMIN) {
  const created = await call<{ key: KeyJson; secret: string }>(as, 'POST', '/v1/keys', { name, role });
  expect(created.status).toBe(201);
  return created.body;
}

describe('roles, keys and the audit', () => {
  it("refuses an end user's token every admin route, naming the role; a viewer cannot write", async () => {
    for (const [method, path, body] of [
      ['POST', '/v1/keys', { name: 'mine', role: 'admin' }],
      ['GET', '/v1/keys', undefined],
      ['GET', '/v1/audit', undefined],
      ['DELETE', '/v1/memory/subjects/someone-else', undefined],
    ] as const) {
      const refused = await call(TENANT, method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: 'FORBIDDEN_ROLE',
        details: { requiredRole: 'admin', role: 'member' },
      });
    }
    const viewer = await call({ tenant: TENANT, roles: ['viewer'] }, 'POST', '/v1/conversations/c/messages', {
      content: 'hello',
    });
    expect(viewer.body.error).toMatchObject({ code: 'FORBIDDEN_ROLE', details: { requiredRole: 'member' } });
    expect((await call(TENANT, 'GET', '/v1/me')).body).toMatchObject({ tenantId: TENANT, role: 'member' });
  });

  it('a developer key cannot create or list keys; an admin key can, and the key shows its role', async () => {
    const developer = await createKey('ci', 'developer');
    expect(developer.secret.startsWith(`${developer.key.prefix}_`)).toBe(true);
    const refused = await call({ key: developer.secret }, 'POST', '/v1/keys', { name: 'escalate', role: 'admin' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'FORBIDDEN_ROLE',
      details: { requiredRole: 'admin', role: 'developer' },
    });
    expect((await call({ key: developer.secret }, 'GET', '/v1/me')).body).toMatchObject({
      tenantId: TENANT,
      role: 'developer',
      keyId: developer.key.keyId,
      subject: `key:${developer.key.keyId}`,
    });
    const tampered = `${developer.secret.slice(0, -1)}${developer.secret.endsWith('A') ? 'B' : 'A'}`;
    expect((await call({ key: tampered }, 'GET', '/v1/me')).body.error?.code).toBe('INVALID_API_KEY');
  });

  it("keeps keys to their tenant: another tenant's admin cannot see or revoke them", async () => {
    const { key } = await createKey('acme only', 'member');
    const globex: Caller = { tenant: OTHER, roles: ['admin'] };
    expect((await call<{ keys: KeyJson[] }>(globex, 'GET', '/v1/keys')).body.keys).toEqual([]);
    const revoke = await call(globex, 'DELETE', `/v1/keys/${key.keyId}`);
    expect(revoke.status).toBe(404);
    expect(revoke.body.error?.code).toBe('API_KEY_NOT_FOUND');
  });

  it('refuses a revoked key on both api replicas', async () => {
    const { key, secret } = await createKey('to revoke', 'member');
    // Both replicas verify it and keep the answer (for ten minutes, here).
    expect((await call({ key: secret }, 'GET', '/v1/me', undefined, 0)).status).toBe(200);
    expect((await call({ key: secret }, 'GET', '/v1/me', undefined, 1)).status).toBe(200);
    expect((await call(ADMIN, 'DELETE', `/v1/keys/${key.keyId}`, undefined, 0)).status).toBe(200);
    const here = await call({ key: secret }, 'GET', '/v1/me', undefined, 0);
    expect(here.status).toBe(401);
    expect(here.body.error?.code).toBe('API_KEY_REVOKED');
    // The other replica only learns it from the NATS notice (its cached answer is good for ten minutes).
    const there = await waitFor('the second replica to refuse the revoked key', async () => {
      const answer = await call({ key: secret }, 'GET', '/v1/me', undefined, 1);
      return answer.status === 401 ? answer : undefined;
    });
    expect(there.body.error?.code).toBe('API_KEY_REVOKED');
  });

  it('a key acting for a user leaves the key and the user in the audit, and its last use is recorded', async () => {
    const admin = await createKey('provisioning', 'admin');
    const created = await createKey('made for bob', 'viewer', { key: admin.secret, user: 'bob' });
    const me = await call({ key: admin.secret, user: 'bob' }, 'GET', '/v1/me');
    expect(me.body).toMatchObject({ subject: 'bob', actingUser: 'bob', keyId: admin.key.keyId, role: 'admin' });
    const audit = await call<{ actions: ActionJson[] }>(ADMIN, 'GET', '/v1/audit?limit=50');
    expect(audit.status).toBe(200);
    expect(audit.body.actions).toContainEqual(
      expect.objectContaining({
        operation: 'createApiKey',
        resource: `keyId=${created.key.keyId}`,
        keyId: admin.key.keyId,
        actingUser: 'bob',
        subject: `key:${admin.key.keyId}`,
        role: 'admin',
      }),
    );
    expect(audit.body.actions).toContainEqual(
      expect.objectContaining({
        operation: 'createApiKey',
        resource: `keyId=${admin.key.keyId}`,
        subject: 'alice-admin',
      }),
    );
    // Reads are not administrative actions; no secret is in the audit.
    expect(audit.body.actions.every((a) => a.operation !== 'listApiKeys' && a.operation !== 'getMe')).toBe(true);
    expect(JSON.stringify(audit.body)).not.toContain(created.secret);
    const bad = await call({ key: admin.secret, user: 'b'.repeat(201) }, 'GET', '/v1/me');
    expect(bad.body.error?.code).toBe('INVALID_ACTING_USER');
    const byToken = await fetch(`${platform.apiUrl}/v1/me`, {
      headers: { authorization: `Bearer ${await tokenFor(TENANT)}`, 'platform-user': 'bob' },
    });
    expect(byToken.status).toBe(403);

    const used = await waitFor('the key to show its last use', async () => {
      const keys = await call<{ keys: KeyJson[] }>(ADMIN, 'GET', '/v1/keys');
      return keys.body.keys.find((k) => k.keyId === admin.key.keyId && k.lastUsedAt !== null);
    });
    expect(Date.parse(used.lastUsedAt!)).toBeGreaterThan(0);
  });

  it("counts a key's turns against its tenant's rate limit, as its tokens' turns", async () => {
    const { secret } = await createKey('chatty', 'member');
    const limited = await waitFor('the tenant to reach its turns per minute', async () => {
      const sent = await call({ key: secret, user: 'carol' }, 'POST', '/v1/conversations/rate/messages', {
        content: '[scenario:plain] hi',
      });
      return sent.status === 429 ? sent : undefined;
    });
    expect(limited.body.error?.code).toBe('RATE_LIMITED');
    // The same tenant's token is past the same limit.
    const token = await call(TENANT, 'POST', '/v1/conversations/rate-2/messages', { content: '[scenario:plain] hi' });
    expect(token.status).toBe(429);
  });
});
