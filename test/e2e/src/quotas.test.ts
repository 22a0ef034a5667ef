// Issue 34, items 7-9 through every service as a process: tokens that never expire and tenant
// claims of the wrong type are refused at the edge, and a tenant's quotas (TENANT_TIERS, the same
// value for api, credential, memory and trigger) are answered 429 QUOTA_EXCEEDED naming the quota.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootPlatform, JWT_SECRET, tokenFor, type SuitePlatform } from './support.js';

const TIERS = {
  default: { concurrentStreams: 2, eventsPerMinute: 3, credentialRecords: 5, credentialBytes: 2_000, tasks: 2 },
};
let platform: SuitePlatform;

beforeAll(async () => {
  const tiers = { TENANT_TIERS: JSON.stringify(TIERS) };
  platform = await bootPlatform('quotas', {
    // A short heartbeat so an open stream's headers reach the client at once.
    env: { api: { ...tiers, SSE_HEARTBEAT_MS: '200' }, credential: tiers, memory: tiers, trigger: tiers },
    // The suite boots every service; a loaded machine may need longer than the default 30 s each.
    readyTimeoutMs: 120_000,
  });
}, 600_000);
afterAll(async () => {
  await platform?.stop();
});

async function call(
  method: string,
  path: string,
  bearer: string,
  body?: unknown,
): Promise<{
  status: number;
  body: { error?: { code: string; message: string; details?: Record<string, unknown> } } & Record<string, unknown>;
  retryAfter: string | null;
}> {
  const response = await fetch(`${platform.apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as never,
    retryAfter: response.headers.get('retry-after'),
  };
}

const raw = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(JWT_SECRET));
const now = () => Math.floor(Date.now() / 1000);

describe('tokens (items 7, 8)', () => {
  it('refuses tokens without exp, with exp 1e20 and issued a year ahead, and never takes sub for a tenant claim of the wrong type', async () => {
    const owner = await tokenFor('tenant-a');
    expect(
      (await call('PUT', '/v1/credentials/google/primary', owner, { secret: { token: 'tenant-a-only' } })).status,
    ).toBe(200);
    const cases: [Record<string, unknown>, string][] = [
      [{ tenant: 'tenant-a', iat: now() }, 'TOKEN_WITHOUT_EXPIRY'],
      [{ tenant: 'tenant-a', iat: now(), exp: 1e20 }, 'TOKEN_LIFETIME_TOO_LONG'],
      [{ tenant: 'tenant-a', iat: now() + 365 * 86_400, exp: now() + 365 * 86_400 + 60 }, 'TOKEN_ISSUED_IN_FUTURE'],
      [{ tenant: 123, sub: 'tenant-a', iat: now(), exp: now() + 60 }, 'INVALID_TOKEN'],
    ];
    for (const [claims, code] of cases) {
      const answer = await call('GET', '/v1/credentials', await raw(claims));
      expect(answer, code).toMatchObject({ status: 401, body: { error: { code } } });
      expect(JSON.stringify(answer.body)).not.toContain('google');
    }
  });
});

describe('quotas (item 9)', () => {
  it('credential records and bytes', async () => {
    const bearer = await tokenFor('quota-credentials');
    expect((await call('PUT', '/v1/credentials/google/a', bearer, { secret: { t: 'x'.repeat(1_500) } })).status).toBe(
      200,
    );
    const bytes = await call('PUT', '/v1/credentials/google/b', bearer, { secret: { t: 'x'.repeat(600) } });
    expect(bytes).toMatchObject({
      status: 429,
      body: {
        error: { code: 'QUOTA_EXCEEDED', details: { quota: 'credential_bytes', limit: 2_000, tier: 'default' } },
      },
    });
    for (const account of ['b', 'c', 'd', 'e'])
      expect((await call('PUT', `/v1/credentials/github/${account}`, bearer, { secret: { t: 'x' } })).status).toBe(200);
    expect(await call('PUT', '/v1/credentials/github/f', bearer, { secret: { t: 'x' } })).toMatchObject({
      status: 429,
      body: { error: { code: 'QUOTA_EXCEEDED', details: { quota: 'credential_records', limit: 5 } } },
    });
  });

  it('tasks and the minimum schedule interval', async () => {
    const bearer = await tokenFor('quota-tasks');
    const every = (intervalSeconds: number) => ({
      name: 'poll',
      trigger: { type: 'schedule', intervalSeconds },
      action: { instruction: 'check' },
    });
    expect(await call('POST', '/v1/tasks', bearer, every(1))).toMatchObject({
      status: 429,
      body: { error: { code: 'QUOTA_EXCEEDED', details: { quota: 'min_schedule_interval_seconds', limit: 60 } } },
    });
    expect((await call('POST', '/v1/tasks', bearer, every(60))).status).toBe(201);
    expect((await call('POST', '/v1/tasks', bearer, every(3_600))).status).toBe(201);
    expect(await call('POST', '/v1/tasks', bearer, every(3_600))).toMatchObject({
      status: 429,
      body: { error: { code: 'QUOTA_EXCEEDED', details: { quota: 'tasks', limit: 2 } } },
    });
  });

  it('events per minute', async () => {
    const bearer = await tokenFor('quota-events');
    const event = { source: 'gmail', type: 'message_received', data: { n: 1 } };
    for (let i = 0; i < 3; i++) expect((await call('POST', '/v1/events', bearer, event)).status).toBe(202);
    const refused = await call('POST', '/v1/events', bearer, event);
    expect(refused).toMatchObject({
      status: 429,
      body: { error: { code: 'QUOTA_EXCEEDED', details: { quota: 'events_per_minute', limit: 3 } } },
    });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('concurrent streams', async () => {
    const bearer = await tokenFor('quota-streams');
    const controllers: AbortController[] = [];
    const open = async () => {
      const controller = new AbortController();
      controllers.push(controller);
      const response = await fetch(`${platform.apiUrl}/v1/notifications`, {
        headers: { authorization: `Bearer ${bearer}` },
        signal: controller.signal,
      });
      return { status: response.status, body: response.status === 200 ? undefined : await response.json() };
    };
    try {
      expect((await open()).status).toBe(200);
      expect((await open()).status).toBe(200);
      expect(await open()).toMatchObject({
        status: 429,
        body: { error: { code: 'QUOTA_EXCEEDED', details: { quota: 'concurrent_streams', limit: 2 } } },
      });
    } finally {
      for (const controller of controllers) controller.abort();
    }
  });
});
