// A waiting agent-tool that the user never answers expires in the pool, and the conversation gets
// a tool result saying the action was not taken (the model reads it on the next message).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, waitForCatalog, type SuitePlatform } from './support.js';
import { startTravelRunner, type TravelRunner } from './travel.js';

interface Stored {
  message: {
    role: string;
    content?: string | null;
    toolCallId?: string;
    status?: string;
    toolCalls?: Array<{ id: string; name: string }>;
  };
}

let platform: SuitePlatform;
let runner: TravelRunner;

beforeAll(async () => {
  platform = await bootPlatform('agent-expiry', {
    // Agents waiting for input expire after 1.5 s here (24 h by default), swept every 200 ms.
    env: {
      'agent-pool': { AGENT_INPUT_TTL_MS: '1500', SWEEP_INTERVAL_MS: '200' },
      orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' },
    },
  });
  runner = await startTravelRunner(platform);
  await waitForCatalog(platform.apiUrl, ['flight_search']);
});
afterAll(async () => {
  await runner?.stop();
  await platform?.stop();
});

describe('an agent the user never answers', () => {
  it('expires, and its call gets a timeout result in the conversation', async () => {
    const tenant = 'expiry-tenant';
    const first = await api<{ status: string; pending: Array<{ agentName: string; callId: string }> }>(
      platform,
      'POST',
      '/v1/conversations/late-1/messages',
      tenant,
      {
        content: '[scenario:travel-missing-field] Find me flights from SFO next Friday.',
      },
    );
    expect(first.body.status).toBe('waiting');
    const callId = first.body.pending[0]!.callId;

    const deadline = Date.now() + 20_000;
    let messages: Stored[] = [];
    while (Date.now() < deadline) {
      messages = (await api<{ messages: Stored[] }>(platform, 'GET', '/v1/conversations/late-1/messages', tenant)).body
        .messages;
      if (messages.some((m) => m.message.toolCallId === `${callId}:resumed`)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const notice = messages.find((m) => m.message.toolCallId === `${callId}:resumed`);
    expect(notice?.message).toMatchObject({ role: 'tool', status: 'timeout' });
    // The notice is a complete exchange: the platform's call, then its result.
    const index = messages.indexOf(notice!);
    expect(messages[index - 1]?.message.toolCalls).toEqual([
      expect.objectContaining({ id: `${callId}:resumed`, name: 'flight_search' }),
    ]);
    // Nothing waits any more, so the next message runs the loop normally.
    expect((await api<{ approvals: unknown[] }>(platform, 'GET', '/v1/approvals', tenant)).body.approvals).toEqual([]);
    const next = await api<{ status: string }>(platform, 'POST', '/v1/conversations/late-1/messages', tenant, {
      content: '[scenario:plain] never mind',
    });
    expect(next.body.status).toBe('completed');
  });
});
