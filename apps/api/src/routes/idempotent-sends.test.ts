// Idempotency-Key at the HTTP edge (docs/conversations.md, "Idempotent sends"): the messages route
// and the facade check the key, send it to the orchestrator with the request's fingerprint, and
// answer its refusals in the documented envelope. The orchestrator port is this test's own: it
// answers as the orchestrator does for a repeat (the first send's run) and for a reused key; the
// real one, with Postgres, runs in the orchestrator's idempotent-sends test and the e2e suite.
import type { orchestratorV1 } from '@platform/proto';
import { PlatformError } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { allOperations } from '../api-operations.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { useOrchestratorEdgeApp } from '../test-support/orchestrator-edge-app.js';

const SECRET = 'idempotent-sends-secret-idempotent-sends';
const seen: orchestratorV1.HandleMessageRequest[] = [];
/** The run the test's orchestrator answers keyed messages with: a first send's, not the caller's. */
const FIRST_RUN = 'run_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01';

const orchestrator = {
  handleMessage: async (request: orchestratorV1.HandleMessageRequest) => {
    seen.push(request);
    if (request.content === 'reused')
      throw new PlatformError(
        'failed_precondition',
        'IDEMPOTENCY_KEY_REUSED',
        `Idempotency-Key '${request.idempotencyKey}' was sent with a different request (run '${FIRST_RUN}')`,
        { details: { field: 'Idempotency-Key', runId: FIRST_RUN } },
      );
    return {
      runId: request.idempotencyKey ? FIRST_RUN : request.runId,
      status: 'completed',
      stopReason: 'final_answer',
      response: `echo: ${request.content}`,
      turns: 1,
      toolCalls: [],
      durationMs: 5,
      usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
      pendingJson: '[]',
    };
  },
};

const { inject, bearer } = useOrchestratorEdgeApp(SECRET, orchestrator);

async function sendMessage(body: unknown, headers: Record<string, string> = {}, conversation = 'conv-1') {
  seen.length = 0;
  const response = await inject({
    method: 'POST',
    url: `/v1/conversations/${conversation}/messages`,
    headers: { authorization: await bearer({ tenant: 'acme' }), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
  return { response, sent: seen[0] };
}

describe('Idempotency-Key on POST /v1/conversations/{conversationId}/messages', () => {
  it('sends no key and no fingerprint without the header', async () => {
    const { response, sent } = await sendMessage({ content: 'hello' });
    expect(response.statusCode).toBe(200);
    expect(sent?.idempotencyKey).toBeUndefined();
    expect(sent?.requestFingerprint).toBeUndefined();
  });

  it("sends the key with the body's fingerprint, and answers with the run the orchestrator names", async () => {
    const { response, sent } = await sendMessage(
      { content: 'hello', timeZone: 'Europe/Berlin' },
      { 'idempotency-key': 'k-1' },
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ runId: FIRST_RUN, response: 'echo: hello' });
    expect(sent?.idempotencyKey).toBe('k-1');
    expect(sent?.requestFingerprint).toMatch(/^[0-9a-f]{64}$/);
    // The same body with its fields in another order is the same request.
    const reordered = await sendMessage({ timeZone: 'Europe/Berlin', content: 'hello' }, { 'idempotency-key': 'k-1' });
    expect(reordered.sent?.requestFingerprint).toBe(sent?.requestFingerprint);
    // Another body, or the same body to another conversation, is another request.
    const otherBody = await sendMessage({ content: 'hello!', timeZone: 'Europe/Berlin' }, { 'idempotency-key': 'k-1' });
    expect(otherBody.sent?.requestFingerprint).not.toBe(sent?.requestFingerprint);
    const otherConversation = await sendMessage(
      { content: 'hello', timeZone: 'Europe/Berlin' },
      { 'idempotency-key': 'k-1' },
      'conv-2',
    );
    expect(otherConversation.sent?.requestFingerprint).not.toBe(sent?.requestFingerprint);
  });

  it('refuses a malformed key with 400 INVALID_IDEMPOTENCY_KEY before anything runs', async () => {
    for (const key of ['has space', 'x'.repeat(256), 'key;drop', '']) {
      const { response, sent } = await sendMessage({ content: 'hello' }, { 'idempotency-key': key });
      expect(response.statusCode, key).toBe(400);
      expect(response.json()).toMatchObject({
        error: { code: 'INVALID_IDEMPOTENCY_KEY', details: { field: 'Idempotency-Key' } },
      });
      expect(sent).toBeUndefined();
    }
  });

  it('answers a key reused with another request 422 IDEMPOTENCY_KEY_REUSED, naming the first run', async () => {
    const { response } = await sendMessage({ content: 'reused' }, { 'idempotency-key': 'k-2' });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({
      error: { code: 'IDEMPOTENCY_KEY_REUSED', details: { runId: FIRST_RUN } },
    });
  });
});

describe('Idempotency-Key on the OpenAI-compatible facade', () => {
  async function complete(body: Record<string, unknown>, key?: string, conversation: string | null = 'chat-1') {
    seen.length = 0;
    const response = await inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: {
        authorization: await bearer({ tenant: 'acme' }),
        'content-type': 'application/json',
        ...(conversation ? { 'x-conversation-id': conversation } : {}),
        ...(key !== undefined ? { 'idempotency-key': key } : {}),
      },
      payload: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'hi' }], ...body }),
    });
    return { response, sent: seen[0] };
  }

  it("answers a keyed completion as the first send's run: its id and x-run-id", async () => {
    const { response, sent } = await complete({}, 'facade-1');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-run-id']).toBe(FIRST_RUN);
    expect(response.json()).toMatchObject({ id: `chatcmpl-${FIRST_RUN.slice('run_'.length)}` });
    expect(sent?.idempotencyKey).toBe('facade-1');
    // Asking for usage in a stream is how the answer is delivered, not what is asked.
    const withOptions = await complete({ stream_options: { include_usage: true } }, 'facade-1');
    expect(withOptions.sent?.requestFingerprint).toBe(sent?.requestFingerprint);
    const otherModel = await complete({ model: 'support-bot' }, 'facade-1');
    expect(otherModel.sent?.requestFingerprint).not.toBe(sent?.requestFingerprint);
  });

  it("sends a keyed retry without x-conversation-id to the first send's conversation (a new one per key)", async () => {
    const first = await complete({}, 'facade-2', null);
    const retry = await complete({ stream: false }, 'facade-2', null);
    expect(retry.sent?.conversationId).toBe(first.sent?.conversationId);
    expect(retry.sent?.requestFingerprint).toBe(first.sent?.requestFingerprint);
    expect(first.sent?.conversationId).toMatch(/^chat-[0-9a-f-]{36}$/);
    const otherKey = await complete({}, 'facade-3', null);
    expect(otherKey.sent?.conversationId).not.toBe(first.sent?.conversationId);
    // Without a key every such request is a conversation of its own, as before.
    const [a, b] = [await complete({}, undefined, null), await complete({}, undefined, null)];
    expect(a.sent?.conversationId).not.toBe(b.sent?.conversationId);
    // Naming the conversation is part of the request.
    const named = await complete({}, 'facade-2', 'chat-9');
    expect(named.sent?.requestFingerprint).not.toBe(first.sent?.requestFingerprint);
  });

  it('refuses a malformed key with 400 and sends nothing', async () => {
    const { response, sent } = await complete({}, 'bad key');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'INVALID_IDEMPOTENCY_KEY' } });
    expect(sent).toBeUndefined();
  });

  it('documents the header and the 422 on both operations', () => {
    const document = buildOpenApiDocument(allOperations) as unknown as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, unknown> }>
      >;
    };
    for (const operation of [
      document.paths['/v1/conversations/{conversationId}/messages']!['post']!,
      document.paths['/v1/chat/completions']!['post']!,
    ]) {
      expect(operation.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key')).toBe(true);
      expect(JSON.stringify(operation.responses['422'])).toContain('IDEMPOTENCY_KEY_REUSED');
      expect(JSON.stringify(operation.responses['400'])).toContain('INVALID_IDEMPOTENCY_KEY');
    }
  });
});
