import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { classifyOpenAIError } from './openai-errors.js';
import { readChatStream, type ChatChunkStream } from './openai-stream-reader.js';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

const text = (content: string, finishReason: string | null = null): Chunk =>
  ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta: { content }, finish_reason: finishReason, logprobs: null }],
  }) as Chunk;

/**
 * Behaves like the `openai` client's Stream: yields the chunks, then optionally stalls until its
 * controller aborts, and on abort ends quietly instead of throwing.
 */
function fakeStream(chunks: Chunk[], options: { stall?: boolean } = {}): ChatChunkStream & { aborted: () => boolean } {
  const controller = new AbortController();
  async function* iterate(): AsyncGenerator<Chunk> {
    for (const chunk of chunks) {
      if (controller.signal.aborted) return;
      yield chunk;
    }
    if (options.stall)
      await new Promise((resolve) => controller.signal.addEventListener('abort', resolve, { once: true }));
  }
  const iterator = iterate();
  return { controller, [Symbol.asyncIterator]: () => iterator, aborted: () => controller.signal.aborted };
}

const toModelError = (error: unknown) => classifyOpenAIError(error, { provider: 'openai', model: 'm', timeoutMs: 50 });

describe('readChatStream', () => {
  it('returns the assembled answer and forwards each text piece', async () => {
    const pieces: string[] = [];
    const result = await readChatStream(fakeStream([text('a'), text(' b'), text('', 'stop')]), {
      onTextDelta: (d) => pieces.push(d),
      idleTimeoutMs: 1000,
      toModelError,
    });
    expect(pieces).toEqual(['a', ' b']);
    expect(result.message.content).toBe('a b');
  });

  it('times out a stream that goes silent after the headers', async () => {
    const stream = fakeStream([text('a')], { stall: true });
    await expect(
      readChatStream(stream, { onTextDelta: () => undefined, idleTimeoutMs: 50, toModelError }),
    ).rejects.toMatchObject({ kind: 'timeout' });
    expect(stream.aborted()).toBe(true);
  });

  it('reports a stream that ended quietly because the caller aborted as cancelled', async () => {
    const caller = new AbortController();
    const stream = fakeStream([text('a'), text('b'), text('', 'stop')]);
    const onTextDelta = () => {
      caller.abort();
      stream.controller.abort(); // what the client does when the caller's signal fires
    };
    await expect(
      readChatStream(stream, { onTextDelta, idleTimeoutMs: 1000, signal: caller.signal, toModelError }),
    ).rejects.toMatchObject({ kind: 'cancelled' });
  });

  it('reports a stream cut short without a finish reason as a server failure', async () => {
    await expect(
      readChatStream(fakeStream([text('a')]), { onTextDelta: () => undefined, idleTimeoutMs: 1000, toModelError }),
    ).rejects.toMatchObject({ kind: 'server' });
  });

  it('lets an exception from onTextDelta through unchanged', async () => {
    const stream = fakeStream([text('a'), text('b', 'stop')]);
    const mine = new Error('renderer crashed');
    await expect(
      readChatStream(stream, {
        onTextDelta: () => {
          throw mine;
        },
        idleTimeoutMs: 1000,
        toModelError,
      }),
    ).rejects.toBe(mine);
  });
});
