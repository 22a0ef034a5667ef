import { createParser } from 'eventsource-parser';
import { ApiError } from '../api/api-error.js';

/** One server-sent event as the platform writes it: `id`, `event` and a JSON `data`. */
export interface StreamedEvent {
  id: number;
  type: string;
  data: unknown;
}

export interface FollowOptions {
  /** Opens the stream, after the event with `afterId` (0: from the start); `attempt` 0 is the first connection. */
  open: (afterId: number, attempt: number, signal: AbortSignal) => Promise<Response>;
  onEvent: (event: StreamedEvent) => void;
  /** Whether an event is the stream's last (the run's `execution_end`): after it, a closed stream is done. */
  isLast: (event: StreamedEvent) => boolean;
  signal: AbortSignal;
  /** Reconnections in a row without a new event before giving up (default 5). */
  maxReconnects?: number;
  /** Wait before reconnection `attempt` (default: 500 ms doubling, at most 8 s). */
  backoffMs?: (attempt: number) => number;
  /** Told before each reconnection, with the id it resumes after. */
  onReconnect?: (attempt: number, afterId: number) => void;
}

const defaultBackoff = (attempt: number): number => Math.min(500 * 2 ** (attempt - 1), 8_000);

const wait = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** Feeds one response's body to the parser; answers whether the last event was seen. */
async function readBody(
  response: Response,
  options: FollowOptions,
  seen: { lastId: number; done: boolean },
): Promise<void> {
  if (!response.body) return;
  const parser = createParser({
    onEvent: (message) => {
      const id = Number(message.id ?? NaN);
      let data: unknown;
      try {
        data = JSON.parse(message.data);
      } catch {
        data = message.data;
      }
      const event: StreamedEvent = {
        id: Number.isFinite(id) ? id : seen.lastId,
        type: message.event ?? 'message',
        data,
      };
      // A resumed stream never repeats what was seen; guard anyway so a chat never shows text twice.
      if (Number.isFinite(id) && id > 0 && id <= seen.lastId) return;
      if (Number.isFinite(id) && id > 0) seen.lastId = id;
      options.onEvent(event);
      if (options.isLast(event)) seen.done = true;
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Follows an SSE stream to its last event, reconnecting after a cut with the last id seen (the
 * api's `Last-Event-ID` resume), so no event is lost or shown twice. Answers the last id seen.
 * An API error answer (4xx) ends it with that error; so does giving up after `maxReconnects`.
 */
export async function followEventStream(options: FollowOptions): Promise<number> {
  const seen = { lastId: 0, done: false };
  const maxReconnects = options.maxReconnects ?? 5;
  let failuresInARow = 0;
  for (let attempt = 0; !seen.done && !options.signal.aborted; attempt++) {
    const before = seen.lastId;
    try {
      const response = await options.open(seen.lastId, attempt, options.signal);
      await readBody(response, options, seen);
    } catch (error) {
      if (options.signal.aborted) break;
      if (error instanceof ApiError && error.status >= 400 && error.status < 500) throw error;
      if (failuresInARow >= maxReconnects) throw error;
    }
    if (seen.done || options.signal.aborted) break;
    failuresInARow = seen.lastId > before ? 0 : failuresInARow + 1;
    if (failuresInARow > maxReconnects)
      throw new ApiError(0, 'STREAM_LOST', `the event stream closed ${failuresInARow} times without new events`);
    options.onReconnect?.(attempt + 1, seen.lastId);
    await wait((options.backoffMs ?? defaultBackoff)(Math.max(failuresInARow, 1)), options.signal);
  }
  return seen.lastId;
}
