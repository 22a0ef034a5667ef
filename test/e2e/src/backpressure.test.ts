// Back-pressure and tier limits: a saturated orchestrator refuses new turns with 503 OVERLOADED
// and retry-after (instead of queueing without bound), and a tenant's tier sets its turn rate
// (429 RATE_LIMITED with retry-after) without limiting tenants of other tiers.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, JWT_SECRET, type SuitePlatform, waitFor } from './support.js';

interface SimRequest {
  scenario: string | null;
  status: number | null;
}

let platform: SuitePlatform;

beforeAll(async () => {
  platform = await bootPlatform('backpressure', {
    env: { orchestrator: { MAX_CONCURRENT_TURNS: '1', TENANT_TIERS: JSON.stringify({ free: { turnsPerMinute: 1 } }) } },
  });
});
afterAll(async () => {
  await platform?.stop();
});

async function tokenWithTier(tenant: string, tier?: string): Promise<string> {
  return new SignJWT({ tenant, ...(tier ? { tier } : {}) })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(`user-of-${tenant}`)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
}

async function send(token: string, conversationId: string, content: string, accept?: string): Promise<Response> {
  return fetch(`${platform.apiUrl}/v1/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(accept ? { accept } : {}) },
    body: JSON.stringify({ content }),
  });
}

/** Resolves once llm-sim holds an unanswered request of the scenario: that turn is in flight. */
async function modelIsWorkingOn(scenario: string): Promise<void> {
  await waitFor(`a ${scenario} model request in flight`, async () => {
    const { requests } = (await (await fetch(`${platform.llmSimUrl}/_sim/requests`)).json()) as {
      requests: SimRequest[];
    };
    return requests.some((r) => r.scenario === scenario && r.status === null) ? true : undefined;
  });
}

/** The limits count per fixed one-minute window: do not start within a few seconds of its end. */
async function awayFromWindowEnd(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 100));
}

describe('an orchestrator at its concurrency limit', () => {
  it('refuses a turn in another conversation with 503 OVERLOADED and retry-after, then serves again', async () => {
    const busyToken = await tokenWithTier('busy-tenant');
    const slow = send(busyToken, 'slow-1', '[scenario:slow] take your time');
    await modelIsWorkingOn('slow');

    const otherToken = await tokenWithTier('other-tenant');
    const refused = await send(otherToken, 'other-1', '[scenario:plain] hello');
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ error: { code: 'OVERLOADED' } });

    // A client asking for a stream gets the same JSON refusal: no stream opens for a turn never run.
    const refusedStream = await send(otherToken, 'other-2', '[scenario:plain] hello', 'text/event-stream');
    expect(refusedStream.status).toBe(503);
    expect(refusedStream.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refusedStream.headers.get('retry-after')).not.toBeNull();
    expect(await refusedStream.json()).toMatchObject({ error: { code: 'OVERLOADED' } });

    // The running turn is not disturbed, and once it is done the orchestrator takes turns again.
    const finished = await slow;
    expect(finished.status).toBe(200);
    expect(await finished.json()).toMatchObject({
      status: 'completed',
      response: 'Sorry for the wait: this is the slow answer.',
    });
    const retried = await send(otherToken, 'other-1', '[scenario:plain] hello');
    expect(retried.status).toBe(200);

    // The refused messages were never stored.
    const history = await api<{ messages: Array<{ message: { role: string } }> }>(
      platform,
      'GET',
      '/v1/conversations/other-1/messages',
      'other-tenant',
    );
    expect(history.body.messages.map((m) => m.message.role)).toEqual(['user', 'assistant']);
    expect(
      (await api<{ messages: unknown[] }>(platform, 'GET', '/v1/conversations/other-2/messages', 'other-tenant')).body
        .messages,
    ).toEqual([]);
  });
});

describe('tier limits', () => {
  it('limits a tenant of the "free" tier to one turn per minute, with 429 and retry-after', async () => {
    await awayFromWindowEnd();
    const token = await tokenWithTier('free-tenant', 'free');
    expect((await send(token, 'free-1', '[scenario:plain] one')).status).toBe(200);

    const refused = await send(token, 'free-2', '[scenario:plain] two');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toMatchObject({
      error: { code: 'RATE_LIMITED', details: { limit: 1, windowSeconds: 60, tier: 'free' } },
    });

    const refusedStream = await send(token, 'free-3', '[scenario:plain] three', 'text/event-stream');
    expect(refusedStream.status).toBe(429);
    expect(refusedStream.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await refusedStream.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  });

  it('does not limit tenants of another tier, or without one, at the free rate', async () => {
    await awayFromWindowEnd();
    for (const [tenant, tier] of [
      ['pro-tenant', 'pro'],
      ['untiered-tenant', undefined],
    ] as const) {
      const token = await tokenWithTier(tenant, tier);
      for (const n of [1, 2, 3]) {
        const response = await send(token, `${tenant}-${n}`, `[scenario:plain] turn ${n}`);
        expect(response.status, `${tenant} turn ${n}`).toBe(200);
      }
    }
  });
});
