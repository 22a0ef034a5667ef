// The engine (libs/agent-loop) driving the real OpenAI adapter against llm-sim over HTTP:
// recovery behaviours that only make sense end to end.
import { compileLoopConfig, runAgentLoop, type ToolPort } from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from './openai-chat-model.js';
import { SIM_API_KEY, startLlmSim, type RunningLlmSim } from './test-support/llm-sim.js';

let sim: RunningLlmSim;
const noTools: ToolPort = { list: () => [], execute: () => Promise.reject(new Error('no tools')) };

beforeAll(async () => {
  sim = await startLlmSim();
});
afterAll(async () => sim?.stop());

function model(apiKey = SIM_API_KEY): OpenAIChatModel {
  return new OpenAIChatModel({ baseURL: sim.baseURL, apiKey, model: 'sim-1', timeoutMs: 5_000 });
}

describe('the loop over the OpenAI adapter and llm-sim', () => {
  it('recovers from context_length_exceeded by trimming the request view', async () => {
    // A history far larger than the scenario's 300-token window; the trimmed view fits.
    const history: ChatMessage[] = Array.from({ length: 30 }, (_, i): ChatMessage =>
      i % 2 === 0
        ? { role: 'user', content: `[scenario:context-overflow] earlier question ${i} ${'words '.repeat(20)}` }
        : { role: 'assistant', content: `earlier answer ${i} ${'words '.repeat(20)}` },
    );
    const messages: ChatMessage[] = [
      { role: 'system', content: 'persona' },
      ...history,
      { role: 'user', content: '[scenario:context-overflow] and now?' },
    ];
    const config = compileLoopConfig({ maxHistoryMessages: 4, llmRetryBaseDelayMs: 0 });
    const result = await runAgentLoop({ runId: 'overflow', messages }, { model: model(), tools: noTools, config });
    expect(result.stopReason).toBe('final_answer');
    expect(result.response).toBe('The conversation now fits in my context window.');
    expect(result.transcript[0]!.view.stage).toBe('trimmed');
    expect(result.transcript[0]!.view.diagnostics).toContainEqual(expect.objectContaining({ kind: 'history_trimmed' }));
  });

  it('waits out a 429 as its retry-after asks, then succeeds', async () => {
    const config = compileLoopConfig({ llmRetryBaseDelayMs: 10 });
    const started = Date.now();
    const result = await runAgentLoop(
      { runId: 'rate', messages: [{ role: 'user', content: `[scenario:rate-limit-once] hello ${Date.now()}` }] },
      { model: model(), tools: noTools, config },
    );
    expect(result.stopReason).toBe('final_answer');
    expect(result.transcript[0]!.model.retries).toBe(1);
    // retry-after: 1 (second), larger than the 10 ms backoff: the header wins.
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('surfaces a wrong key as a clear model error, without retrying', async () => {
    const result = await runAgentLoop(
      { runId: 'auth', messages: [{ role: 'user', content: 'hi' }] },
      { model: model('sk-wrong'), tools: noTools },
    );
    expect(result).toMatchObject({ stopReason: 'model_error', error: { kind: 'auth' } });
    expect(result.response).toMatch(/OPENAI_API_KEY/);
    expect(result.response).not.toContain('sk-wrong');
  });
});
