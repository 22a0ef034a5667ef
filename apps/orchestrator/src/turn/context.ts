import type { ChatMessage } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { ToolCatalog } from '@platform/tool-sdk';
import { prepareContext } from '../context/prepare-context.js';
import type { MemoryRecall } from '../recall/memory-recall.js';
import type { EquippedTurn } from './tool-ports.js';
import type { TurnStep } from './turn-steps.js';

/** The context step's output: the turn with the messages its loop starts from. */
export interface PreparedTurn extends EquippedTurn {
  input: ChatMessage[];
}

export interface ContextStepOptions {
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  catalog: ToolCatalog;
  /** How much of the conversation's history the turn sees (HISTORY_MESSAGES, HISTORY_MAX_BYTES). */
  history: { messages: number; bytes: number };
  /** The user's time zone when the run names none (DEFAULT_TIMEZONE). */
  defaultTimeZone: string;
  /** Long-term memory recalled into the system prompt. */
  memoryRecall: MemoryRecall;
}

/**
 * The context and recall step: a first attempt assembles the input (history, recalled memory, the
 * profile's prompt, the live tools, the agents' exchanges); a resumed run uses its journaled input.
 */
export class ContextStep implements TurnStep<EquippedTurn, PreparedTurn> {
  readonly name = 'context';

  constructor(private readonly options: ContextStepOptions) {}

  async run(turn: EquippedTurn): Promise<PreparedTurn> {
    const input = turn.attempt.run.input ?? (await this.firstInput(turn));
    return { ...turn, input };
  }

  private async firstInput({ attempt: { run }, profile, tools, agents }: EquippedTurn): Promise<ChatMessage[]> {
    const { catalog, memory, history, defaultTimeZone, memoryRecall } = this.options;
    // Right after a boot (or when every runner was briefly unreachable) the catalog may be empty:
    // discover once now rather than run a turn that offers the model no tools.
    if (catalog.list().length === 0) await catalog.refresh();
    const prepared = await prepareContext(memory, history, {
      runId: run.runId,
      tenantId: run.tenantId,
      conversationId: run.conversationId,
      content: run.content,
      systemPrompt: profile.systemPrompt,
      timeZone: run.timeZone || defaultTimeZone,
      capabilities: tools.list(),
      now: run.createdAt,
      agentExchanges: agents.messages,
      // A tenant agent may turn recall off (its `memory.recall`).
      ...(profile.recall === false ? {} : { memoryRecall }),
      ...(profile.recallBudgetTokens !== undefined ? { recallBudgetTokens: profile.recallBudgetTokens } : {}),
    });
    return prepared.messages;
  }
}
