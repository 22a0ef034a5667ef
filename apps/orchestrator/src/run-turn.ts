import { addUsage, ZERO_USAGE, type ModelPort, type TokenUsage, type ToolSchema } from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import type { ToolCatalog, ToolClient } from '@platform/tool-sdk';
import { dispatchToolCall, type CallScope, type ToolCallRecord } from './tool-dispatch.js';

export interface TurnInput extends CallScope {
  systemPrompt: string;
  history: ChatMessage[];
  userMessage: string;
}

export interface TurnDependencies {
  model: ModelPort;
  catalog: ToolCatalog;
  tools: ToolClient;
  logger: Logger;
  maxTurns: number;
  toolTimeoutMs: number;
}

export type TurnStopReason = 'final_answer' | 'max_turns' | 'model_error';

export interface TurnResult {
  response: string;
  stopReason: TurnStopReason;
  turns: number;
  /** Messages this turn produced, in order, starting with the user message. */
  messages: ChatMessage[];
  toolCalls: ToolCallRecord[];
  usage: TokenUsage;
}

const MAX_TURNS_INSTRUCTION = 'You have used all the steps available for this request. Answer now, from the information gathered so far, without calling tools.';

/**
 * The walking-skeleton ReAct loop: ask the model, run the tool calls it requests concurrently,
 * feed the results back, until it answers without tool calls or the turn limit is reached.
 */
export async function runTurn(input: TurnInput, deps: TurnDependencies): Promise<TurnResult> {
  const userMessage: ChatMessage = { role: 'user', content: input.userMessage };
  const produced: ChatMessage[] = [userMessage];
  const toolCalls: ToolCallRecord[] = [];
  let usage = ZERO_USAGE;
  const tools: ToolSchema[] = deps.catalog.list().map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }));
  const context = (): ChatMessage[] => [{ role: 'system', content: input.systemPrompt }, ...input.history, ...produced];

  try {
    for (let turn = 1; turn <= deps.maxTurns; turn++) {
      const response = await deps.model.complete({ messages: context(), tools, toolChoice: 'auto' });
      usage = addUsage(usage, response.usage);
      produced.push(response.message);
      const calls = response.message.toolCalls ?? [];
      if (calls.length === 0) return { response: response.message.content ?? '', stopReason: 'final_answer', turns: turn, messages: produced, toolCalls, usage };
      const results = await Promise.all(calls.map((call) => dispatchToolCall(call, input, deps.catalog, deps.tools, deps.toolTimeoutMs)));
      for (const result of results) {
        produced.push(result.message);
        toolCalls.push(result.record);
      }
    }
    const final = await deps.model.complete({ messages: [...context(), { role: 'user', content: MAX_TURNS_INSTRUCTION }], tools: [], toolChoice: 'none' });
    usage = addUsage(usage, final.usage);
    produced.push(final.message);
    return { response: final.message.content ?? '', stopReason: 'max_turns', turns: deps.maxTurns, messages: produced, toolCalls, usage };
  } catch (err) {
    deps.logger.error({ err, runId: input.runId }, 'model call failed; ending the turn');
    const response = `The model could not be reached (${(err as Error).message}). Please try again later.`;
    return { response, stopReason: 'model_error', turns: produced.filter((m) => m.role === 'assistant').length, messages: produced, toolCalls, usage };
  }
}
