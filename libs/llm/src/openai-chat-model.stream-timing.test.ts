import type { ModelRequest } from '@platform/agent-loop';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from './openai-chat-model.js';
import { SIM_API_KEY, startLlmSim, type RunningLlmSim } from './test-support/llm-sim.js';
import { modelFailure as failure } from './test-support/model-error.js';

// No shipped scenario pauses between stream chunks, so this file runs its own simulator serving
// only `trickle`: a text answer whose chunks come 500 ms apart.
let sim: RunningLlmSim;

beforeAll(async () => {
  sim = await startLlmSim([{ name: 'trickle', steps: [{ content: 'one two three', chunkDelayMs: 500 }] }]);
});
afterAll(async () => sim?.stop());

describe('OpenAIChatModel once the stream has started', () => {
  const request = (extra: Partial<ModelRequest>): ModelRequest => ({
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    toolChoice: 'auto',
    ...extra,
  });
  const trickle = (timeoutMs: number) =>
    new OpenAIChatModel({ baseURL: sim.baseURL, apiKey: SIM_API_KEY, model: 'sim-1', timeoutMs });

  it('applies timeoutMs between chunks, not to the whole answer', async () => {
    const pieces: string[] = [];
    // ~2.5 s in all (6 chunks), but never 1 s without a chunk.
    const answer = await trickle(1_000).complete(request({ onTextDelta: (delta) => pieces.push(delta) }));
    expect(pieces).toEqual(['one', ' two', ' three']);
    expect(answer.message.content).toBe('one two three');
  });

  it('times out a stream that stalls longer than timeoutMs', async () => {
    // The client's own timeout has ended with the headers; only the idle timer can catch this.
    const error = await failure(trickle(250).complete(request({ onTextDelta: () => undefined })));
    expect(error).toMatchObject({ kind: 'timeout' });
    expect(error.message).toContain('No stream data for 250 ms');
  });

  it('maps aborting request.signal mid-stream to cancelled, though the client ends the stream quietly', async () => {
    const controller = new AbortController();
    const pieces: string[] = [];
    const call = trickle(5_000).complete(
      request({
        signal: controller.signal,
        onTextDelta: (delta) => {
          pieces.push(delta);
          controller.abort();
        },
      }),
    );
    expect(await failure(call)).toMatchObject({ kind: 'cancelled' });
    expect(pieces).toEqual(['one']);
  });
});
