import { startServiceProcess, type ServiceProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from './openai-chat-model.js';

let sim: ServiceProcess;
let baseURL: string;

beforeAll(async () => {
  sim = await startServiceProcess({ app: 'llm-sim', mode: 'source', telemetry: false, env: { LLM_SIM_PORT: '0', LLM_SIM_API_KEY: 'k', LOG_LEVEL: 'warn' } });
  baseURL = `http://127.0.0.1:${String(sim.ready['port'])}/v1`;
});
afterAll(async () => sim?.stop());

describe('OpenAIChatModel against llm-sim over HTTP', () => {
  it('returns tool calls with their raw arguments and the usage', async () => {
    const model = new OpenAIChatModel({ baseURL, apiKey: 'k', model: 'sim-1', timeoutMs: 5_000 });
    const response = await model.complete({
      messages: [{ role: 'user', content: '[scenario:calculator] 12 * (3 + 4)?' }],
      tools: [{ name: 'calculator', description: 'math', parameters: { type: 'object', properties: { expression: { type: 'string' } } } }],
      toolChoice: 'auto',
    });
    expect(response.finishReason).toBe('tool_calls');
    expect(response.message).toMatchObject({ role: 'assistant', provider: 'openai', model: 'sim-1', toolCalls: [{ name: 'calculator' }] });
    expect(JSON.parse(response.message.toolCalls![0]!.arguments)).toEqual({ expression: '12 * (3 + 4)' });
    expect(response.usage.inputTokens).toBeGreaterThan(0);
  });

  it('sends no tools when tool choice is none', async () => {
    const model = new OpenAIChatModel({ baseURL, apiKey: 'k', model: 'sim-1', timeoutMs: 5_000 });
    const response = await model.complete({
      messages: [{ role: 'user', content: '[scenario:calculator] 12 * (3 + 4)?' }],
      tools: [{ name: 'calculator', description: 'math', parameters: { type: 'object' } }],
      toolChoice: 'none',
    });
    expect(response.finishReason).toBe('stop');
    expect(response.message.toolCalls).toBeUndefined();
  });

  it('surfaces a wrong API key as an authentication error', async () => {
    const model = new OpenAIChatModel({ baseURL, apiKey: 'wrong', model: 'sim-1', timeoutMs: 5_000 });
    await expect(model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], toolChoice: 'auto' })).rejects.toMatchObject({ kind: 'auth', status: 401 });
  });
});
