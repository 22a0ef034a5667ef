import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport } from '@platform/service-kit';
import { api, bootPlatform, historyOf, storedResultOf, tokenFor, type SuitePlatform } from './support.js';

let platform: SuitePlatform;
let profilesDir: string;

beforeAll(async () => {
  profilesDir = await mkdtemp(path.join(os.tmpdir(), 'profiles-'));
  const profilesFile = path.join(profilesDir, 'profiles.json');
  await writeFile(
    profilesFile,
    JSON.stringify({
      defaultProfile: 'assistant',
      profiles: [
        { name: 'assistant', systemPrompt: 'You are a helpful assistant.' },
        { name: 'timekeeper', systemPrompt: 'You only tell the time.', tools: ['current_*'], loop: { maxTurns: 3 } },
        { name: 'operator', systemPrompt: 'You run anything.', access: { tenants: ['operator-tenant'] } },
        { name: 'plain-text', systemPrompt: 'You are a helpful assistant.', toolProtocol: 'text' },
      ],
    }),
  );
  platform = await bootPlatform('pipeline', {
    env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '2', AGENT_PROFILES_FILE: profilesFile } },
  });
});
afterAll(async () => {
  await platform?.stop();
  await rm(profilesDir, { recursive: true, force: true });
});

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
    expect(await refused.json()).toMatchObject({
      error: { code: 'RATE_LIMITED', details: { limit: 2, windowSeconds: 60 } },
    });
    expect((await send('quiet-tenant')).status).toBe(200);
  });
});

describe('agent profiles', () => {
  interface Turn {
    response: string;
    toolCalls: Array<{ callId: string; name: string; status: string; errorCode?: string }>;
  }

  it('runs the default profile when a request names none, with every tool', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/p-1/messages', 'profile-tenant-1', {
      content: '[scenario:calculator] 12 * (3 + 4)?',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.toolCalls).toEqual([expect.objectContaining({ name: 'calculator', status: 'success' })]);
  });

  it('limits a profile to its tool allowlist: a tool that exists outside it is denied TOOL_NOT_ALLOWED (not an unknown tool), and never offered', async () => {
    const turn = await api<Turn>(platform, 'POST', '/v1/conversations/p-2/messages', 'profile-tenant-2', {
      content: '[scenario:calculator] 12 * (3 + 4)?',
      profile: 'timekeeper',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.toolCalls).toEqual([
      expect.objectContaining({ name: 'calculator', status: 'denied', errorCode: 'TOOL_NOT_ALLOWED' }),
    ]);
    const result = storedResultOf(await historyOf(platform, 'profile-tenant-2', 'p-2'), turn.body.toolCalls[0]!.callId);
    expect(result).toMatchObject({ status: 'denied' });
    expect(result!.content).not.toContain('there is no tool');
  });

  it('keeps a profile to the tenants its access rules name: to another tenant it does not exist', async () => {
    const allowed = await api(platform, 'POST', '/v1/conversations/p-4/messages', 'operator-tenant', {
      content: '[scenario:plain] hi',
      profile: 'operator',
    });
    expect(allowed.status).toBe(200);
    const kept = await api<{ error: { code: string; message: string } }>(
      platform,
      'POST',
      '/v1/conversations/p-4/messages',
      'profile-tenant-4',
      { content: 'hi', profile: 'operator' },
    );
    expect(kept.status).toBe(404);
    expect(kept.body.error.code).toBe('PROFILE_NOT_FOUND');
    // The answer names the profiles this tenant may use, and says nothing of the others.
    expect(kept.body.error.message).toContain('assistant, timekeeper');
    expect(kept.body.error.message.replace("'operator'", '')).not.toContain('operator');
  });

  it('runs tools for a model without function calling through the text protocol, telling it when a reply breaks the protocol', async () => {
    const turn = await api<Turn & { stopReason: string }>(
      platform,
      'POST',
      '/v1/conversations/p-5/messages',
      'profile-tenant-5',
      {
        content: '[scenario:react-calculator] What is 12 * (3 + 4)?',
        profile: 'plain-text',
      },
    );
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ stopReason: 'final_answer', response: '12 * (3 + 4) = 84.' });
    expect(turn.body.toolCalls).toEqual([expect.objectContaining({ name: 'calculator', status: 'success' })]);
    // History keeps the native shape: the call and its result as a tool exchange, and the parse
    // error the platform sent back marked as the platform's, not the user's.
    const history = await api<{ messages: Array<{ message: Record<string, unknown> }> }>(
      platform,
      'GET',
      '/v1/conversations/p-5/messages',
      'profile-tenant-5',
    );
    const messages = history.body.messages.map((m) => m.message);
    expect(messages.filter((m) => m['role'] === 'user' && m['synthetic'] !== true).map((m) => m['content'])).toEqual([
      '[scenario:react-calculator] What is 12 * (3 + 4)?',
    ]);
    expect(messages.find((m) => m['synthetic'] === true)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('Error parsing your response'),
    });
    expect(messages.find((m) => m['role'] === 'tool')).toMatchObject({ toolName: 'calculator', status: 'success' });
  });

  it('answers an unknown profile with 404', async () => {
    const turn = await api(platform, 'POST', '/v1/conversations/p-3/messages', 'profile-tenant-3', {
      content: 'hi',
      profile: 'nobody',
    });
    expect(turn.status).toBe(404);
    expect(turn.body).toMatchObject({ error: { code: 'PROFILE_NOT_FOUND' } });
  });
});

describe('time zones', () => {
  it('answers a message in a known time zone, and refuses an unknown zone with 400 INVALID_TIME_ZONE, twice alike', async () => {
    const known = await api(platform, 'POST', '/v1/conversations/tz-1/messages', 'zone-tenant', {
      content: 'hi',
      timeZone: 'Asia/Tokyo',
    });
    expect(known.status).toBe(200);
    // The second refusal comes from the remembered answer: it must say the same.
    for (const attempt of [1, 2]) {
      const unknown = await api(platform, 'POST', `/v1/conversations/tz-${attempt + 1}/messages`, 'zone-tenant', {
        content: 'hi',
        timeZone: 'Mars/Olympus_Mons',
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ error: { code: 'INVALID_TIME_ZONE' } });
    }
  });
});

describe('a conversation with a huge history', () => {
  it("still answers, loading only what fits, and its history reads page by page (it is far beyond gRPC's default 4 MiB)", async () => {
    // 40 tool exchanges with 250 KB results (as web pages or files would give): 10 MB of history.
    // Seeded as the orchestrator writes history (memory answers AppendMessages to it only).
    const memory = createGrpcClient(
      memoryV1.MemoryServiceClient,
      memoryV1.MemoryServiceService,
      `127.0.0.1:${platform.ports.memory}`,
      {
        defaultDeadlineMs: 10_000,
        transport: new MutualTlsTransport(await platform.pki.issue('orchestrator')),
        server: 'memory',
      },
    );
    const exchange = (i: number) => [
      JSON.stringify({
        role: 'assistant',
        content: null,
        toolCalls: [{ id: `call_big_${i}`, name: 'web_fetch', arguments: '{}' }],
      }),
      JSON.stringify({
        role: 'tool',
        toolCallId: `call_big_${i}`,
        toolName: 'web_fetch',
        content: 'x'.repeat(250_000),
        status: 'success',
        isError: false,
      }),
    ];
    try {
      await memory.rpc.appendMessages({
        tenantId: 'big-tenant',
        conversationId: 'huge-1',
        messagesJson: Array.from({ length: 40 }, (_, i) => exchange(i)).flat(),
        runId: '',
        appendId: 'seed',
      });
    } finally {
      memory.close();
    }
    const turn = await api<{ status: string; response: string }>(
      platform,
      'POST',
      '/v1/conversations/huge-1/messages',
      'big-tenant',
      { content: '[scenario:plain] still there?' },
    );
    expect(turn.status).toBe(200);
    expect(turn.body.status).toBe('completed');

    let afterSeq = 0;
    let pages = 0;
    let count = 0;
    for (let more = true; more; pages++) {
      const page = await api<{ messages: Array<{ seq: number }>; hasMore: boolean }>(
        platform,
        'GET',
        `/v1/conversations/huge-1/messages?afterSeq=${afterSeq}&limit=1000`,
        'big-tenant',
      );
      expect(page.status).toBe(200);
      count += page.body.messages.length;
      afterSeq = page.body.messages.at(-1)!.seq;
      more = page.body.hasMore;
    }
    expect(count).toBe(82);
    expect(pages).toBeGreaterThan(1);
  });
});
