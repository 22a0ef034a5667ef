import { ChatMessage } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';

/**
 * Loads the latest history of a conversation, as stored. A window that starts with tool results
 * whose calls fell outside it is left as it is: the engine's request view drops such orphans and
 * records it in the run's diagnostics (libs/agent-loop request-view.ts), the one place that repairs.
 */
export async function loadHistory(
  memory: PromiseClient<memoryV1.MemoryServiceClient>,
  tenantId: string,
  conversationId: string,
  window: { messages: number; bytes: number },
): Promise<ChatMessage[]> {
  const page = await memory.listMessages({
    tenantId,
    conversationId,
    afterSeq: 0,
    limit: window.messages,
    maxBytes: window.bytes,
    latest: true,
  });
  return page.messages.map((m) => ChatMessage.parse(JSON.parse(m.messageJson)));
}
