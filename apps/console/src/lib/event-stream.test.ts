import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/api-error.js';
import { followEventStream, type StreamedEvent } from './event-stream.js';

const sse = (...events: Array<{ id: number; type: string }>): string =>
  events.map((e) => `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify({ id: e.id, type: e.type })}\n\n`).join('');

/** A response whose body delivers `chunks`, then ends (a cut, unless the last event was sent). */
const responseOf = (...chunks: string[]): Response =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    }),
  );

const isLast = (event: StreamedEvent): boolean => event.type === 'execution_end';

describe('followEventStream', () => {
  it('reads a stream to its last event, even when an event is split across chunks', async () => {
    const whole = sse(
      { id: 1, type: 'execution_start' },
      { id: 2, type: 'message_chunk' },
      { id: 3, type: 'execution_end' },
    );
    const seen: StreamedEvent[] = [];
    const lastId = await followEventStream({
      open: async () => responseOf(whole.slice(0, 30), whole.slice(30)),
      onEvent: (e) => seen.push(e),
      isLast,
      signal: new AbortController().signal,
    });
    expect(seen.map((e) => [e.id, e.type])).toEqual([
      [1, 'execution_start'],
      [2, 'message_chunk'],
      [3, 'execution_end'],
    ]);
    expect(seen[2]!.data).toEqual({ id: 3, type: 'execution_end' });
    expect(lastId).toBe(3);
  });

  it('resumes after a cut from the last id it saw, and drops an event sent again', async () => {
    const opened: Array<[number, number]> = [];
    const reconnects: number[] = [];
    const seen: number[] = [];
    await followEventStream({
      open: async (afterId, attempt) => {
        opened.push([afterId, attempt]);
        return attempt === 0
          ? responseOf(sse({ id: 1, type: 'execution_start' }, { id: 2, type: 'message_chunk' }))
          : responseOf(sse({ id: 2, type: 'message_chunk' }, { id: 3, type: 'execution_end' }));
      },
      onEvent: (e) => seen.push(e.id),
      isLast,
      signal: new AbortController().signal,
      backoffMs: () => 0,
      onReconnect: (_attempt, afterId) => reconnects.push(afterId),
    });
    expect(opened).toEqual([
      [0, 0],
      [2, 1],
    ]);
    expect(reconnects).toEqual([2]);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('retries a network failure, then gives up after too many reconnections without progress', async () => {
    let opens = 0;
    const failing = followEventStream({
      open: async () => {
        opens++;
        throw new TypeError('network down');
      },
      onEvent: () => undefined,
      isLast,
      signal: new AbortController().signal,
      maxReconnects: 2,
      backoffMs: () => 0,
    });
    await expect(failing).rejects.toThrow('network down');
    expect(opens).toBe(3);
  });

  it("ends at once with the API error when the stream is refused (another tenant's run)", async () => {
    let opens = 0;
    const refused = followEventStream({
      open: async () => {
        opens++;
        throw new ApiError(404, 'RUN_NOT_FOUND', 'no run');
      },
      onEvent: () => undefined,
      isLast,
      signal: new AbortController().signal,
      backoffMs: () => 0,
    });
    await expect(refused).rejects.toMatchObject({ status: 404, code: 'RUN_NOT_FOUND' });
    expect(opens).toBe(1);
  });
});
