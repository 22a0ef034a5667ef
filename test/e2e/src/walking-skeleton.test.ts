import type { ChatMessage } from '@platform/contracts';
import type { Platform } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform } from './support.js';

interface TurnBody {
  runId: string;
  status: string;
  stopReason: string;
  response: string;
  turns: number;
  toolCalls: Array<{
    callId: string;
    name: string;
    success: boolean;
    status: string;
    durationMs: number;
    errorCode?: string;
  }>;
  durationMs: number;
}
interface HistoryBody {
  messages: Array<{ seq: number; runId: string | null; message: ChatMessage }>;
}

let platform: Platform;

beforeAll(async () => {
  platform = await bootPlatform('skeleton');
});
afterAll(async () => platform?.stop());

describe('one message through api -> orchestrator -> tool runner and back', () => {
  it('answers with the tool result and stores the whole exchange in order', async () => {
    const turn = await api<TurnBody>(platform, 'POST', '/v1/conversations/math-1/messages', 'acme', {
      content: '[scenario:calculator] What is 12 * (3 + 4)?',
    });
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ status: 'completed', stopReason: 'final_answer', turns: 2 });
    expect(turn.body.response).toContain('84');
    expect(turn.body.toolCalls).toEqual([
      expect.objectContaining({ name: 'calculator', success: true, status: 'success' }),
    ]);
    expect(turn.body.runId).toMatch(/^run_/);

    const history = await api<HistoryBody>(platform, 'GET', '/v1/conversations/math-1/messages', 'acme');
    expect(history.status).toBe(200);
    const messages = history.body.messages.map((m) => m.message);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const [user, call, result, answer] = messages as [ChatMessage, ChatMessage, ChatMessage, ChatMessage];
    expect(user).toEqual({ role: 'user', content: '[scenario:calculator] What is 12 * (3 + 4)?' });
    if (call.role !== 'assistant' || result.role !== 'tool' || answer.role !== 'assistant')
      throw new Error('unexpected roles');
    expect(call.toolCalls).toHaveLength(1);
    expect(call.toolCalls![0]).toMatchObject({ name: 'calculator' });
    expect(JSON.parse(call.toolCalls![0]!.arguments)).toEqual({ expression: '12 * (3 + 4)' });
    expect(result).toMatchObject({
      toolCallId: call.toolCalls![0]!.id,
      toolName: 'calculator',
      status: 'success',
      isError: false,
    });
    expect(JSON.parse(result.content)).toEqual({ expression: '12 * (3 + 4)', result: 84 });
    expect(answer.content).toBe(turn.body.response);
    expect(turn.body.toolCalls[0]!.callId).toBe(call.toolCalls![0]!.id);
    expect(history.body.messages.every((m) => m.runId === turn.body.runId)).toBe(true);
  });

  it('runs parallel tool calls of the demo scenario and continues the conversation', async () => {
    const turn = await api<TurnBody>(platform, 'POST', '/v1/conversations/demo-1/messages', 'acme', {
      content: 'What is (17 + 25) * 3, and what time is it in Tokyo?',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.toolCalls.map((c) => c.name).sort()).toEqual(['calculator', 'current_time']);
    expect(turn.body.response).toContain('126');
    const second = await api<TurnBody>(platform, 'POST', '/v1/conversations/demo-1/messages', 'acme', {
      content: '[scenario:plain] Thanks!',
    });
    expect(second.status).toBe(200);
    const history = await api<HistoryBody>(platform, 'GET', '/v1/conversations/demo-1/messages', 'acme');
    expect(history.body.messages.map((m) => m.message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('answers the question npm run platform prints to try (What is 2^10?) through the real calculator', async () => {
    const turn = await api<TurnBody>(platform, 'POST', '/v1/conversations/try-1/messages', 'acme', {
      content: 'What is 2^10?',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.toolCalls.map((c) => [c.name, c.status])).toEqual([['calculator', 'success']]);
    expect(turn.body.response).toBe('2^10 = 1024.');
    const other = await api<TurnBody>(platform, 'POST', '/v1/conversations/try-1/messages', 'acme', {
      content: 'Who wrote Hamlet?',
    });
    expect(other.body.toolCalls).toEqual([]);
    expect(other.body.response).toMatch(/cannot really answer "Who wrote Hamlet\?"/);
  });

  it('keeps each run with its transcript, readable only by its tenant', async () => {
    const turn = await api<TurnBody>(platform, 'POST', '/v1/conversations/run-1/messages', 'acme', {
      content: '[scenario:calculator] What is 12 * (3 + 4)?',
    });
    const run = await api<{
      status: string;
      stopReason: string;
      result: { response: string; toolCalls: unknown[] };
      transcript: Array<{ iteration: number; tools: unknown[]; view: { stage: string } }>;
    }>(platform, 'GET', `/v1/runs/${turn.body.runId}`, 'acme');
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      status: 'completed',
      stopReason: 'final_answer',
      result: { response: turn.body.response },
    });
    expect(run.body.transcript.map((i) => [i.iteration, i.tools.length, i.view.stage])).toEqual([
      [1, 1, 'full'],
      [2, 0, 'full'],
    ]);
    const stolen = await api(platform, 'GET', `/v1/runs/${turn.body.runId}`, 'globex');
    expect(stolen.status).toBe(404);
    expect(stolen.body).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });
  });

  it('never shows one tenant another tenant history', async () => {
    await api(platform, 'POST', '/v1/conversations/private-1/messages', 'acme', {
      content: '[scenario:plain] my secret',
    });
    const other = await api<HistoryBody>(platform, 'GET', '/v1/conversations/private-1/messages', 'globex');
    expect(other.status).toBe(200);
    expect(other.body.messages).toEqual([]);
  });

  it('lists the live tool catalog', async () => {
    const tools = await api<{
      tools: Array<{ name: string; runner: string; kind: string; inputSchema: { required?: string[] } }>;
    }>(platform, 'GET', '/v1/tools', 'acme');
    expect(tools.status).toBe(200);
    // The built-in runner's tools; the memory service serves its own (memory_search, ...) beside them.
    const builtin = tools.body.tools.filter((t) => t.runner === 'builtin-tools');
    expect(builtin.map((t) => t.name)).toEqual(['calculator', 'current_time']);
    expect(builtin[0]).toMatchObject({
      runner: 'builtin-tools',
      kind: 'tool',
      inputSchema: { required: ['expression'] },
    });
    expect(tools.body.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['memory_search', 'memory_save', 'working_memory_set', 'working_memory_get']),
    );
  });

  it('reports readiness of the api and its dependencies', async () => {
    const ready = await fetch(`${platform.apiUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { orchestrator: 'ok', memory: 'ok' } });
  });
});

describe('when the tool runner is down', () => {
  it('still ends the turn, with a clear tool error result instead of a hang', async () => {
    await platform.kill('tool-runner');
    const turn = await api<TurnBody>(platform, 'POST', '/v1/conversations/down-1/messages', 'acme', {
      content: '[scenario:calculator] What is 12 * (3 + 4)?',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.status).toBe('completed');
    expect(turn.body.toolCalls).toEqual([
      expect.objectContaining({
        name: 'calculator',
        success: false,
        status: 'failed',
        errorCode: 'RUNNER_UNAVAILABLE',
      }),
    ]);
    const history = await api<HistoryBody>(platform, 'GET', '/v1/conversations/down-1/messages', 'acme');
    const toolResult = history.body.messages.map((m) => m.message).find((m) => m.role === 'tool');
    expect(toolResult).toMatchObject({ status: 'failed', isError: true, errorCode: 'RUNNER_UNAVAILABLE' });
    expect(toolResult?.role === 'tool' && toolResult.content).toMatch(/no runner serves 'calculator'/);

    await platform.start('tool-runner');
  });
});
