import { firstInvalidUtf8Offset } from '@platform/contracts';

/**
 * A runner's reply body as JSON. The protocol's bodies are UTF-8; an answer that is not is still
 * the call's answer (it ran), so it is read with U+FFFD for the bad bytes and `badByte` says where
 * the first one was (-1: none), for the caller to report the repair, never to make it silently.
 * `json` is undefined when the body is not JSON at all.
 */
export function readReplyJson(reply: { data: Uint8Array; string(): string }): { json: unknown; badByte: number } {
  const badByte = firstInvalidUtf8Offset(reply.data);
  try {
    return { json: JSON.parse(reply.string()), badByte };
  } catch {
    return { json: undefined, badByte };
  }
}

/** What a reader is told when a reply was repaired (`badByte` from `readReplyJson`). */
export function invalidUtf8Diagnostic(badByte: number): string {
  return `the runner's answer was not valid UTF-8 (first bad byte at offset ${badByte}); bad bytes were read as U+FFFD`;
}
