import { assembleTurnInput, type ToolDescription } from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { loadHistory } from '../history.js';

export interface PrepareContextInput {
  tenantId: string;
  conversationId: string;
  content: string;
  systemPrompt: string;
  timeZone: string;
  capabilities: readonly ToolDescription[];
  now: Date;
  /** Tool exchanges of waiting agents this message finished (the pending-agent step); they follow the message. */
  agentExchanges?: readonly ChatMessage[];
}

/**
 * The prepare-context step: the conversation's history from memory, and the system prompt made of
 * the profile's persona plus framework context (time in the user's zone, the live capabilities).
 */
export async function prepareContext(
  memory: PromiseClient<memoryV1.MemoryServiceClient>,
  historyWindow: { messages: number; bytes: number },
  input: PrepareContextInput,
): Promise<ChatMessage[]> {
  const history = await loadHistory(memory, input.tenantId, input.conversationId, historyWindow);
  const assembled = assembleTurnInput({
    systemPrompt: input.systemPrompt,
    now: input.now,
    timeZone: input.timeZone,
    capabilities: input.capabilities,
    history,
    userMessage: input.content,
  });
  return [...assembled, ...(input.agentExchanges ?? [])];
}
