import type OpenAI from 'openai';
import { AuthenticationError, BadRequestError, InternalServerError, RateLimitError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from './test-support/sim.js';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

let sim: RunningSim;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSim({
    scenarios: [
      {
        name: 'bad-request-twice',
        steps: [{ fault: { kind: 'bad_request', times: 2, message: 'nope' }, content: 'third time lucky' }],
      },
      {
        name: 'overflow-fault',
        contextWindowTokens: 1000,
        steps: [{ fault: { kind: 'context_length_exceeded' }, content: 'ok' }],
      },
    ],
  });
  client = sim.client();
});
afterAll(() => sim.close());
beforeEach(async () => {
  await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
});

const ask = (content: string, c: OpenAI = client) =>
  c.chat.completions.create({ model: 'sim-1', messages: [{ role: 'user', content }] });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('faults', () => {
  it('answers 429 with retry-after headers once, then succeeds on retry', async () => {
    const error = await failure(ask('[scenario:rate-limit-once] hi'));
    expect(error).toBeInstanceOf(RateLimitError);
    const limited = error as RateLimitError;
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('retry-after-ms')).toBe('1000');
    expect(limited.code).toBe('rate_limit_exceeded');
    expect(limited.type).toBe('requests');
    const retried = await ask('[scenario:rate-limit-once] hi');
    expect(retried.choices[0]!.message.content).toBe('Answered after a rate-limit retry.');
    // A different conversation reaching the same step gets its own fault.
    expect(await failure(ask('[scenario:rate-limit-once] other'))).toBeInstanceOf(RateLimitError);
  });

  it("lets the client's own retry (honouring retry-after) recover", async () => {
    const started = Date.now();
    const reply = await ask('[scenario:rate-limit-once] auto', sim.client({ maxRetries: 1 }));
    expect(reply.choices[0]!.message.content).toBe('Answered after a rate-limit retry.');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('forgets fault counts on POST /_sim/reset', async () => {
    expect(await failure(ask('[scenario:server-error-once] hi'))).toBeInstanceOf(InternalServerError);
    expect((await ask('[scenario:server-error-once] hi')).choices[0]!.message.content).toBe(
      'Answered after a server-error retry.',
    );
    await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    const error = await failure(ask('[scenario:server-error-once] hi'));
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).type).toBe('server_error');
  });

  it('fires a times: n fault n times', async () => {
    for (let i = 0; i < 2; i++) {
      const error = await failure(ask('[scenario:bad-request-twice] x'));
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as BadRequestError).message).toMatch(/nope/);
    }
    expect((await ask('[scenario:bad-request-twice] x')).choices[0]!.message.content).toBe('third time lucky');
  });

  it('answers 401 invalid_api_key for the auth-failure scenario', async () => {
    const error = await failure(ask('[scenario:auth-failure] hi'));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).code).toBe('invalid_api_key');
    expect((error as AuthenticationError).message).not.toContain('sk-test-key');
  });

  it('answers context_length_exceeded faults with OpenAI wording', async () => {
    const error = await failure(ask('[scenario:overflow-fault] hi'));
    expect(error).toBeInstanceOf(BadRequestError);
    const bad = error as BadRequestError;
    expect(bad.code).toBe('context_length_exceeded');
    expect(bad.type).toBe('invalid_request_error');
    expect(bad.message).toMatch(
      /maximum context length is 1000 tokens\. However, your messages resulted in 1001 tokens/,
    );
  });
});

describe('contextWindowTokens', () => {
  it('rejects prompts over the window until the client trims them', async () => {
    const history: Message[] = [];
    for (let i = 0; i < 10; i++) {
      history.push({ role: 'user', content: `question ${i}: ${'lorem ipsum '.repeat(10)}` });
      history.push({ role: 'assistant', content: `answer ${i}: ${'dolor sit amet '.repeat(8)}` });
    }
    const latest: Message = { role: 'user', content: '[scenario:context-overflow] and now?' };
    const error = await failure(client.chat.completions.create({ model: 'sim-1', messages: [...history, latest] }));
    expect(error).toBeInstanceOf(BadRequestError);
    const bad = error as BadRequestError;
    expect(bad.code).toBe('context_length_exceeded');
    expect(bad.param).toBe('messages');
    expect((bad.error as { message: string }).message).toMatch(
      /^This model's maximum context length is 300 tokens\. However, your messages resulted in \d+ tokens\./,
    );

    const trimmed = await client.chat.completions.create({ model: 'sim-1', messages: [...history.slice(-2), latest] });
    expect(trimmed.choices[0]!.message.content).toBe('The conversation now fits in my context window.');
    expect(trimmed.usage!.prompt_tokens).toBeLessThanOrEqual(300);
  });
});
