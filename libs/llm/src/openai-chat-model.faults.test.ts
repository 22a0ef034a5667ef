import type { ModelRequest } from '@platform/agent-loop';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';
import { SIM_API_KEY, startLlmSim, type RunningLlmSim } from './test-support/llm-sim.js';
import { modelFailure as failure } from './test-support/model-error.js';

let sim: RunningLlmSim;

beforeAll(async () => {
  sim = await startLlmSim();
});
afterAll(async () => sim?.stop());

function chatModel(options: Partial<OpenAIChatModelOptions> = {}): OpenAIChatModel {
  return new OpenAIChatModel({
    baseURL: sim.baseURL,
    apiKey: SIM_API_KEY,
    model: 'sim-1',
    timeoutMs: 5_000,
    ...options,
  });
}

describe.each([
  ['non-streaming', false],
  ['streaming', true],
])('OpenAIChatModel faults against llm-sim over HTTP (%s)', (mode, streaming) => {
  // The mode is part of every prompt, so the two modes never share a fault's per-fingerprint count.
  const ask = (model: OpenAIChatModel, content: string, extra: Partial<ModelRequest> = {}) =>
    model.complete({
      messages: [{ role: 'user', content: `${content} (${mode})` }],
      tools: [],
      toolChoice: 'auto',
      ...(streaming ? { onTextDelta: () => undefined } : {}),
      ...extra,
    });

  it('maps a 429 to rate_limit with retry-after, and the identical retry succeeds', async () => {
    const model = chatModel();
    const error = await failure(ask(model, '[scenario:rate-limit-once] hello'));
    expect(error).toMatchObject({
      kind: 'rate_limit',
      status: 429,
      retryAfterMs: 1000,
      provider: 'openai',
      model: 'sim-1',
    });
    expect(error.message).toContain('Retry after 1000 ms');
    const retry = await ask(model, '[scenario:rate-limit-once] hello');
    expect(retry.message.content).toBe('Answered after a rate-limit retry.');
  });

  it('maps a prompt over the context window to context_overflow; a short one fits', async () => {
    const model = chatModel();
    const error = await failure(ask(model, `[scenario:context-overflow] ${'blah '.repeat(400)}`));
    expect(error).toMatchObject({ kind: 'context_overflow', status: 400 });
    expect(error.message).toMatch(/maximum context length is 300 tokens.*Trim or summarize/);
    const short = await ask(model, '[scenario:context-overflow] hi');
    expect(short.message.content).toBe('The conversation now fits in my context window.');
  });

  it('maps a wrong API key to auth, naming the fix and not the key', async () => {
    const key = 'sk-wrong-secret-key-987654321';
    const error = await failure(ask(chatModel({ apiKey: key }), '[scenario:plain] hi'));
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    expect(error.message).toContain('Check OPENAI_API_KEY');
    expect(error.message).not.toContain('wrong-secret');
    expect(error.message).not.toContain('4321');
  });

  it('maps the auth-failure scenario to auth', async () => {
    expect(await failure(ask(chatModel(), '[scenario:auth-failure] hi'))).toMatchObject({ kind: 'auth', status: 401 });
  });

  it('maps no answer within timeoutMs to timeout', async () => {
    const error = await failure(ask(chatModel({ timeoutMs: 300 }), '[scenario:slow] hi'));
    expect(error).toMatchObject({ kind: 'timeout' });
    expect(error.message).toContain('within 300 ms');
  });

  it('maps aborting request.signal mid-request to cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect(await failure(ask(chatModel(), '[scenario:slow] hi', { signal: controller.signal }))).toMatchObject({
      kind: 'cancelled',
    });
  });

  it('maps an already aborted signal to cancelled', async () => {
    expect(await failure(ask(chatModel(), '[scenario:plain] hi', { signal: AbortSignal.abort() }))).toMatchObject({
      kind: 'cancelled',
    });
  });

  it('maps a 500 to server, and the identical retry succeeds', async () => {
    const model = chatModel();
    expect(await failure(ask(model, '[scenario:server-error-once] hi'))).toMatchObject({ kind: 'server', status: 500 });
    expect((await ask(model, '[scenario:server-error-once] hi')).message.content).toBe(
      'Answered after a server-error retry.',
    );
  });

  it('maps an unknown model to bad_request', async () => {
    const error = await failure(ask(chatModel({ model: 'no-such-model' }), '[scenario:plain] hi'));
    expect(error).toMatchObject({ kind: 'bad_request', status: 404, model: 'no-such-model' });
    expect(error.message).toContain('Check the model name');
  });

  it('maps an unreachable server to server', async () => {
    const error = await failure(ask(chatModel({ baseURL: 'http://127.0.0.1:1/v1' }), 'hi'));
    expect(error).toMatchObject({ kind: 'server' });
    expect(error.message).toContain('could not be reached at http://127.0.0.1:1');
  });
});
