import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootPlatform, tokenFor, type SuitePlatform } from './support.js';

let platform: SuitePlatform;

beforeAll(async () => {
  platform = await bootPlatform('ratelimit', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '2' } } });
});
afterAll(async () => platform?.stop());

async function send(tenant: string): Promise<Response> {
  return fetch(`${platform.apiUrl}/v1/conversations/limited/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await tokenFor(tenant)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: '[scenario:plain] hi' }),
  });
}

describe('per-tenant rate limit', () => {
  it('refuses turns past the budget with 429 and retry-after, without touching other tenants', async () => {
    // The limit counts per fixed one-minute window: do not start within a few seconds of its end.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 100));
    expect((await send('busy-tenant')).status).toBe(200);
    expect((await send('busy-tenant')).status).toBe(200);
    const refused = await send('busy-tenant');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED', details: { limit: 2, windowSeconds: 60 } } });
    expect((await send('quiet-tenant')).status).toBe(200);
  });
});
