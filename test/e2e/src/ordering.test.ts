// Messages of one conversation run one at a time, in arrival order; conversations run in parallel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, type SuitePlatform, waitFor } from './support.js';

interface Turn {
  runId: string;
  status: string;
  response: string;
}
interface Stored {
  seq: number;
  runId: string | null;
  message: { role: string; content?: string | null };
}

let platform: SuitePlatform;

beforeAll(async () => {
  platform = await bootPlatform('ordering', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
});
afterAll(async () => {
  await platform?.stop();
});

async function history(conversation: string, tenant: string): Promise<Stored[]> {
  const stored: Stored[] = [];
  for (let afterSeq = 0; ;) {
    const page = await api<{ messages: Stored[]; hasMore: boolean }>(
      platform,
      'GET',
      `/v1/conversations/${conversation}/messages?afterSeq=${afterSeq}&limit=1000`,
      tenant,
    );
    stored.push(...page.body.messages);
    if (!page.body.hasMore || page.body.messages.length === 0) return stored;
    afterSeq = page.body.messages.at(-1)!.seq;
  }
}

describe('one conversation', () => {
  it('answers 100 messages sent at once, one run at a time, none lost, none interleaved', async () => {
    const tenant = 'ordering-tenant';
    const turns = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        api<Turn>(platform, 'POST', '/v1/conversations/busy/messages', tenant, {
          content: `[scenario:plain] message ${i}`,
        }),
      ),
    );
    expect(turns.map((t) => t.status)).toEqual(Array(100).fill(200));
    for (const [i, turn] of turns.entries()) expect(turn.body.response).toContain(`message ${i}`);

    const stored = await history('busy', tenant);
    expect(stored).toHaveLength(200);
    // Each run's two messages are adjacent (user, then its answer): no run overlapped another.
    for (let i = 0; i < stored.length; i += 2) {
      const [user, answer] = [stored[i]!, stored[i + 1]!];
      expect(user.message.role).toBe('user');
      expect(answer.message.role).toBe('assistant');
      expect(answer.runId).toBe(user.runId);
      expect(answer.message.content).toContain(String(user.message.content).replace('[scenario:plain] ', ''));
    }
    // History order is arrival order: along the history, the runs' acceptance times never go back.
    const runOrder = stored.filter((_, i) => i % 2 === 0).map((m) => m.runId!);
    expect(new Set(runOrder).size).toBe(100);
    const acceptedAt = await Promise.all(
      runOrder.map(async (runId) =>
        Date.parse((await api<{ createdAt: string }>(platform, 'GET', `/v1/runs/${runId}`, tenant)).body.createdAt),
      ),
    );
    for (let i = 1; i < acceptedAt.length; i++) expect(acceptedAt[i]).toBeGreaterThanOrEqual(acceptedAt[i - 1]!);
  });

  it('runs different conversations side by side', async () => {
    const tenant = 'parallel-tenant';
    // The slow scenario holds each model request for 3 s: all four are with the model at once
    // (llm-sim lists requests it has not answered yet) only if no conversation waits for another.
    const turns = Promise.all(
      ['p1', 'p2', 'p3', 'p4'].map((c) =>
        api<Turn>(platform, 'POST', `/v1/conversations/${c}/messages`, tenant, { content: '[scenario:slow] hi' }),
      ),
    );
    await waitFor('four slow model requests in flight at once', async () => {
      const { requests } = (await (await fetch(`${platform.llmSimUrl}/_sim/requests`)).json()) as {
        requests: Array<{ scenario: string; status: number | null }>;
      };
      return requests.filter((r) => r.scenario === 'slow' && r.status === null).length === 4 ? true : undefined;
    });
    expect((await turns).map((t) => t.body.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
  });
});

describe('conversations of different tenants', () => {
  it('never share a lease, even when tenant and conversation ids join to the same text', async () => {
    // (acme, eu:support) and (acme:eu, support) were one Redis key, `{acme:eu:support}`: the second
    // turn waited for the first. Both slow model requests in flight at once proves they do not.
    const pairs = [
      ['acme', 'eu:support'],
      ['acme:eu', 'support'],
    ] as const;
    const turns = Promise.all(
      pairs.map(([tenant, c]) =>
        api<Turn>(platform, 'POST', `/v1/conversations/${c}/messages`, tenant, { content: '[scenario:slow] hi' }),
      ),
    );
    await waitFor("both tenants' slow model requests in flight at once", async () => {
      const { requests } = (await (await fetch(`${platform.llmSimUrl}/_sim/requests`)).json()) as {
        requests: Array<{ scenario: string; status: number | null }>;
      };
      return requests.filter((r) => r.scenario === 'slow' && r.status === null).length === 2 ? true : undefined;
    });
    expect((await turns).map((t) => t.body.status)).toEqual(['completed', 'completed']);
    // Each tenant sees its own conversation only, with its own turn.
    for (const [tenant, c] of pairs)
      expect((await history(c, tenant)).map((m) => m.message.role)).toEqual(['user', 'assistant']);
  });
});
