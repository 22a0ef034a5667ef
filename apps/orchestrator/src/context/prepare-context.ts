import { assembleTurnInput, type ToolDescription } from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { loadHistory } from './history.js';
import { withMemoryContext, type MemoryRecall } from '../recall/memory-recall.js';
import type { MemoryRecallReport } from '../recall/recall-report.js';

export interface PrepareContextInput {
  /** The run being prepared (its recall report is kept for the run's record). */
  runId?: string;
  tenantId: string;
  conversationId: string;
  content: string;
  systemPrompt: string;
  timeZone: string;
  capabilities: readonly ToolDescription[];
  now: Date;
  /** Tool exchanges of waiting agents this message finished (the pending-agent step); they follow the message. */
  agentExchanges?: readonly ChatMessage[];
  /** Recalls long-term memory for the message into the system prompt; absent: no recall. */
  memoryRecall?: MemoryRecall;
  /** The agent's recall budget in tokens; absent: the recall's own (MEMORY_CONTEXT_TOKENS). */
  recallBudgetTokens?: number;
}

/** The turn's input messages, and what the recall step injected (absent without recall). */
export interface PreparedContext {
  messages: ChatMessage[];
  memoryRecall: MemoryRecallReport | undefined;
}

/**
 * The prepare-context step: the conversation's history from memory, and the system prompt made of
 * the profile's persona, the long-term memory recalled for the message (loaded alongside the
 * history, within its own deadline), plus framework context (time in the user's zone, the live
 * capabilities).
 */
export async function prepareContext(
  memory: PromiseClient<memoryV1.MemoryServiceClient>,
  historyWindow: { messages: number; bytes: number },
  input: PrepareContextInput,
): Promise<PreparedContext> {
  const [history, recalled] = await Promise.all([
    loadHistory(memory, input.tenantId, input.conversationId, historyWindow),
    input.memoryRecall?.recall({
      ...(input.runId ? { runId: input.runId } : {}),
      tenantId: input.tenantId,
      conversationId: input.conversationId,
      query: input.content,
      ...(input.recallBudgetTokens !== undefined ? { budgetTokens: input.recallBudgetTokens } : {}),
    }),
  ]);
  const assembled = assembleTurnInput({
    systemPrompt: withMemoryContext(input.systemPrompt, recalled?.block),
    now: input.now,
    timeZone: input.timeZone,
    capabilities: input.capabilities,
    history,
    userMessage: input.content,
  });
  return { messages: [...assembled, ...(input.agentExchanges ?? [])], memoryRecall: recalled?.report };
}
