import type { ApiClient } from '../api-client.js';
import { fields } from '../format.js';

interface Fork {
  conversationId: string;
  parentConversationId: string;
  atSeq: number;
  depth: number;
}

/** `conversations fork <conversationId> [--at-seq n]`: a new conversation with the history up to message n. */
export async function forkConversation(
  api: ApiClient,
  conversationId: string,
  atSeq: number | undefined,
): Promise<{ json: unknown; text: string }> {
  const fork = await api.send<Fork>(
    'POST',
    `v1/conversations/${encodeURIComponent(conversationId)}/fork`,
    atSeq === undefined ? {} : { atSeq },
  );
  const text = fields([
    ['conversation', fork.conversationId],
    ['forked from', fork.parentConversationId],
    ['at seq', fork.atSeq],
    ['depth', fork.depth],
  ]);
  return { json: fork, text };
}
