import type { ServerResponse } from 'node:http';
import type { AssistantReply } from './assistant-reply.js';
import { SYSTEM_FINGERPRINT, type CompletionMeta } from './render-completion.js';
import { paceChunks, type StreamPace } from './stream-pacing.js';
import type { Usage } from './usage.js';

// Small argument pieces, like the token-sized deltas of the real API, so clients must really
// concatenate `function.arguments` across chunks.
const ARGUMENT_PIECE_CHARS = 5;

/** Splits text into word-sized pieces (leading whitespace kept) whose concatenation is the text. */
export function splitWords(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [];
}

/** Splits a string into fixed-size pieces. */
export function splitFixed(text: string, size = ARGUMENT_PIECE_CHARS): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/**
 * The `chat.completion.chunk` sequence for a reply, in the real API's order: role, content pieces,
 * per tool call a header then argument pieces, the finish chunk, and the usage chunk if asked for.
 */
export function buildStreamChunks(reply: AssistantReply, meta: CompletionMeta, usage: Usage | undefined): object[] {
  const includeUsage = usage !== undefined;
  const chunk = (delta: object, finishReason: string | null = null) => ({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    // With include_usage the real API sends `usage: null` on every chunk but the last.
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: object[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of splitWords(reply.content ?? '')) chunks.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }),
    );
    for (const piece of splitFixed(call.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, reply.finishReason));
  if (usage) {
    chunks.push({
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices: [],
      usage,
    });
  }
  return chunks;
}

/**
 * Writes chunks as server-sent events ending in `data: [DONE]`, spaced by `pace`. Stops quietly
 * when `signal` aborts (client disconnected). With `cutAfterChunks`, breaks the connection after
 * that many chunks instead (a stream cut short). Resolves true when the whole stream was written.
 */
export async function writeEventStream(
  res: ServerResponse,
  chunks: readonly object[],
  pace: StreamPace,
  signal: AbortSignal,
  cutAfterChunks?: number,
): Promise<boolean> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const cutShort = async (): Promise<false> => {
    // Let what was written reach the client, then drop the connection mid-stream.
    await new Promise<void>((resolve) => res.write('', () => resolve()));
    res.destroy();
    return false;
  };
  const written = await paceChunks(Math.min(chunks.length, cutAfterChunks ?? chunks.length), pace, signal, (i) => {
    res.write(`data: ${JSON.stringify(chunks[i])}\n\n`);
    return true;
  });
  if (!written) return false;
  if (cutAfterChunks !== undefined && cutAfterChunks < chunks.length) return cutShort();
  res.end('data: [DONE]\n\n');
  return true;
}
