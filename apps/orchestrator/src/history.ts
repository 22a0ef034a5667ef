import { ChatMessage } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';

/**
 * Loads the latest history of a conversation. A window that starts with tool results whose
 * calls fell outside it is advanced past them, so a call and its result are never separated.
 */
export async function loadHistory(
  memory: PromiseClient<memoryV1.MemoryServiceClient>,
  tenantId: string,
  conversationId: string,
  limit: number,
): Promise<ChatMessage[]> {
  const page = await memory.listMessages({ tenantId, conversationId, afterSeq: 0, limit, latest: true });
  const messages = page.messages.map((m) => ChatMessage.parse(JSON.parse(m.messageJson)));
  let start = 0;
  while (start < messages.length && messages[start]!.role === 'tool') start++;
  return messages.slice(start);
}
