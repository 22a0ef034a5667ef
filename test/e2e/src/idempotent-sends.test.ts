// Idempotent sends across the platform (issue 37, item 2; docs/conversations.md, "Idempotent
// sends"): two api replicas and one orchestrator. A retry with the same Idempotency-Key racing the
// first send on the other replica runs one turn and both are answered with its run (the retry
// streamed); a retry after the orchestrator was killed and started again is answered with the
// same run; the same key with another body is 422.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootPlatform, historyOf, tokenFor, type SuitePlatform, type TurnJson } from './support.js';

const TENANT = 'idem-acme';

let platform: SuitePlatform;

beforeAll(async () => {
  platform = await bootPlatform('idempotent_sends', {
    apiReplicas: 2,
    env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } },
  });
}, 240_000);
afterAll(async () => platform?.stop());

interface Sent {
  status: number;
  /** The JSON answer, or for a streamed one the `execution_end` event's result. */
  body: TurnJson & { error?: { code: string; details?: Record<string, unknown> } };
  runIdHeader: string | null;
}

/** Sends a message with an Idempotency-Key to one api replica; `streamed` asks for SSE. */
async function send(
  conversationId: string,
  content: string,
  key: string,
  { replica = 0, streamed = false }: { replica?: number; streamed?: boolean } = {},
): Promise<Sent> {
  const response = await fetch(`${platform.apiUrls[replica]}/v1/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await tokenFor(TENANT)}`,
      'content-type': 'application/json',
      'idempotency-key': key,
      ...(streamed ? { accept: 'text/event-stream' } : {}),
    },
    body: JSON.stringify({ content }),
  });
  const runIdHeader = response.headers.get('x-run-id');
  if (!streamed || !(response.headers.get('content-type') ?? '').includes('text/event-stream'))
    return { status: response.status, body: (await response.json()) as Sent['body'], runIdHeader };
  const text = await response.text();
  const end = text
    .split('\n\n')
    .find((block) => block.split('\n').includes('event: execution_end'))
    ?.split('\n')
    .find((line) => line.startsWith('data: '));
  if (!end) throw new Error(`the stream has no execution_end:\n${text}`);
  const envelope = JSON.parse(end.slice('data: '.length)) as { runId: string; data: { result: TurnJson } };
  expect(envelope.runId).toBe(envelope.data.result.runId);
  return { status: response.status, body: envelope.data.result, runIdHeader };
}

/** The turns that reached the model with `tag` in their message (each turn's first model call; not memory's calls). */
async function turnsFor(tag: string): Promise<number> {
  const { requests } = (await (await fetch(`${platform.llmSimUrl}/_sim/requests`)).json()) as {
    requests: Array<{ structuredReply: string | null; body: { messages: Array<{ role: string; content: unknown }> } }>;
  };
  return requests.filter((r) => {
    const last = r.body.messages.at(-1);
    return (
      r.structuredReply === null &&
      last?.role === 'user' &&
      typeof last.content === 'string' &&
      last.content.includes(tag)
    );
  }).length;
}

async function userMessagesOf(conversationId: string): Promise<number> {
  return (await historyOf(platform, TENANT, conversationId)).filter((m) => m.message.role === 'user').length;
}

describe('idempotent sends across api replicas and an orchestrator restart', () => {
  it('runs one turn when a retry races the first send on the other replica; both answer with its run', async () => {
    const conversation = `idem-race-${randomUUID().slice(0, 8)}`;
    const tag = randomUUID();
    const key = `retry-${randomUUID()}`;
    const content = `What is 2 + 2? (${tag})`;
    const [first, retry] = await Promise.all([
      send(conversation, content, key, { replica: 0 }),
      send(conversation, content, key, { replica: 1, streamed: true }),
    ]);
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.body.runId).toBe(first.body.runId);
    expect(retry.runIdHeader).toBe(first.body.runId);
    expect(retry.body.response).toBe(first.body.response);
    expect(await turnsFor(tag)).toBe(1);
    expect(await userMessagesOf(conversation)).toBe(1);

    // The key with another body is refused, naming the first send's run, and starts nothing.
    const reused = await send(conversation, `Something else (${tag})`, key, { replica: 1 });
    expect(reused.status).toBe(422);
    expect(reused.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { runId: first.body.runId } });
    expect(await userMessagesOf(conversation)).toBe(1);
  });

  it('answers a retry after the orchestrator was killed and started again with the same run', async () => {
    const conversation = `idem-restart-${randomUUID().slice(0, 8)}`;
    const tag = randomUUID();
    const key = `restart-${randomUUID()}`;
    const content = `What time is it? (${tag})`;
    const first = await send(conversation, content, key);
    expect(first.status).toBe(200);

    await platform.kill('orchestrator');
    await platform.start('orchestrator');

    const retry = await send(conversation, content, key, { replica: 1 });
    expect(retry.status).toBe(200);
    expect(retry.body.runId).toBe(first.body.runId);
    expect(retry.body.response).toBe(first.body.response);
    expect(await turnsFor(tag)).toBe(1);
    expect(await userMessagesOf(conversation)).toBe(1);
  });
});
