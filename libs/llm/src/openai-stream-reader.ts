import type { ModelError, ToolCallDelta } from '@platform/agent-loop';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from 'openai';
import type OpenAI from 'openai';
import { ChatStreamAssembler, type AssembledCompletion } from './openai-stream-assembler.js';

/** What the reader needs of the `openai` client's `Stream`: its chunks and its abort handle. */
export interface ChatChunkStream extends AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk> {
  readonly controller: AbortController;
}

/** How {@link readChatStream} reads one stream. */
export interface ReadChatStreamOptions {
  /** Receives each text piece as it arrives. */
  onTextDelta?: (delta: string) => void;
  /** Receives each tool call as it appears and each piece of its arguments (ChatStreamAssembler). */
  onToolCallDelta?: (delta: ToolCallDelta) => void;
  /** Longest silence allowed between chunks before the stream counts as timed out. */
  idleTimeoutMs: number;
  /** The caller's signal; the `openai` client already aborts the request on it. */
  signal?: AbortSignal;
  /** Turns a failure into a ModelError (the adapter's classifier, with its context). */
  toModelError: (error: unknown) => ModelError;
}

/**
 * Reads a `stream: true` Chat Completions response to the end and assembles it.
 *
 * Why this is more than a `for await`: the `openai` client's `timeout` stops at the response
 * headers, and once the body streams an abort (the caller's signal, or `stream.controller.abort()`)
 * makes the iterator end *quietly*, as if the answer were complete. So this reader keeps its own
 * idle timer, and after the loop tells a finished answer from a timed-out, cancelled or truncated one.
 *
 * Provider failures are thrown as ModelErrors via `toModelError`. An exception thrown by
 * `onTextDelta` or `onToolCallDelta` aborts the request and propagates unchanged: it is the caller's error, not the provider's.
 */
export async function readChatStream(
  stream: ChatChunkStream,
  options: ReadChatStreamOptions,
): Promise<AssembledCompletion> {
  const assembler = new ChatStreamAssembler(options.onToolCallDelta);
  let idle = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      stream.controller.abort();
    }, options.idleTimeoutMs);
  };
  const chunks = stream[Symbol.asyncIterator]();
  arm();
  try {
    for (;;) {
      let next: IteratorResult<OpenAI.Chat.Completions.ChatCompletionChunk>;
      try {
        next = await chunks.next();
      } catch (error) {
        throw options.toModelError(error);
      }
      if (next.done) break;
      arm();
      const text = assembler.add(next.value);
      if (text) options.onTextDelta?.(text);
    }
  } finally {
    clearTimeout(timer);
    // Stops the HTTP response if we leave early (e.g. a listener threw); a no-op after a full read.
    await chunks.return?.();
  }
  if (idle) {
    throw options.toModelError(
      new APIConnectionTimeoutError({ message: `No stream data for ${options.idleTimeoutMs} ms.` }),
    );
  }
  if (options.signal?.aborted) throw options.toModelError(new APIUserAbortError());
  if (!assembler.finished) {
    throw options.toModelError(
      new APIConnectionError({
        message: 'The response stream ended before the answer was finished (no finish_reason).',
      }),
    );
  }
  return assembler.result();
}
