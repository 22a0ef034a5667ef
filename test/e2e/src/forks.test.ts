import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, type SuitePlatform } from './support.js';

// Forks through the whole platform: a fork at a middle message reads its parent's prefix from
// memory (nothing copied), a turn sent to the fork sees that prefix and not the parent's later
// messages, and the parent stays as it was (docs/conversations.md#forks-and-edits).

const TENANT = 'forks-tenant';
const OTHER = 'forks-other-tenant';
const PARENT = 'fork-parent-chat';

interface SimRequest {
  body: { messages: Array<{ role: string; content?: unknown }> };
}
interface StoredMessage {
  seq: number;
  message: { role: string; content: unknown };
}
interface History {
  messages: StoredMessage[];
  hasMore: boolean;
}
interface Fork {
  conversationId: string;
  parentConversationId: string;
  atSeq: number;
  depth: number;
}

let platform: SuitePlatform;

beforeAll(async () => {
  platform = await bootPlatform('forks_e2e', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
});
afterAll(() => platform?.stop());

const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

async function say(conversationId: string, content: string): Promise<void> {
  const turn = await api<{ status: string }>(platform, 'POST', `/v1/conversations/${conversationId}/messages`, TENANT, {
    content,
  });
  expect(turn.status).toBe(200);
  expect(turn.body.status).toBe('completed');
}

async function history(conversationId: string): Promise<StoredMessage[]> {
  const page = await api<History>(platform, 'GET', `/v1/conversations/${conversationId}/messages`, TENANT);
  expect(page.status).toBe(200);
  return page.body.messages;
}

describe('a fork at a middle message', () => {
  it('gets the prefix and its own turn; the parent is unchanged; a turn in it sees only the prefix', async () => {
    await say(PARENT, 'first question');
    await say(PARENT, 'second question');
    await say(PARENT, 'third question');
    const parentBefore = await history(PARENT);
    expect(parentBefore.map((m) => m.message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);

    const fork = await api<Fork>(platform, 'POST', `/v1/conversations/${PARENT}/fork`, TENANT, { atSeq: 4 });
    expect(fork.status).toBe(201);
    expect(fork.body).toMatchObject({ parentConversationId: PARENT, atSeq: 4, depth: 1 });
    expect(fork.body.conversationId).not.toBe(PARENT);

    await say(fork.body.conversationId, 'a different third question');
    const forked = await history(fork.body.conversationId);
    expect(forked.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(forked.slice(0, 4)).toEqual(parentBefore.slice(0, 4));
    expect(forked[4]!.message).toMatchObject({ role: 'user', content: 'a different third question' });
    expect(forked[5]!.message.role).toBe('assistant');
    expect(await history(PARENT)).toEqual(parentBefore);

    // The fork's turn: the model request whose user messages end with the new question (memory's
    // extraction calls reach llm-sim too, so the last request is not necessarily the turn's).
    const requests = ((await (await fetch(`${platform.llmSimUrl}/_sim/requests`)).json()) as { requests: SimRequest[] })
      .requests;
    const usersOf = (r: SimRequest) => r.body.messages.filter((m) => m.role === 'user').map((m) => textOf(m.content));
    const turnRequest = requests.findLast((r) => usersOf(r).at(-1)?.includes('a different third question'));
    expect(turnRequest).toBeDefined();
    const seen = usersOf(turnRequest!);
    expect(seen.some((t) => t.includes('first question'))).toBe(true);
    expect(seen.some((t) => t.includes('second question'))).toBe(true);
    expect(seen.some((t) => t.includes('third question') && !t.includes('different'))).toBe(false);
  });

  it('refuses a seq the conversation has not reached, and another tenant (404)', async () => {
    const far = await api<{ error: { code: string } }>(platform, 'POST', `/v1/conversations/${PARENT}/fork`, TENANT, {
      atSeq: 99,
    });
    expect([far.status, far.body.error.code]).toEqual([404, 'MESSAGE_NOT_FOUND']);
    const theirs = await api<{ error: { code: string } }>(
      platform,
      'POST',
      `/v1/conversations/${PARENT}/fork`,
      OTHER,
      {},
    );
    expect([theirs.status, theirs.body.error.code]).toEqual([404, 'CONVERSATION_NOT_FOUND']);
  });
});
