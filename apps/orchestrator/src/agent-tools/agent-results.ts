import { ZERO_USAGE, type LoopResult, type ToolCallRecord, type ToolOutcome } from '@platform/agent-loop';
import { cutText, resumedCallId, type ChatMessage } from '@platform/contracts';
import type { agentPoolV1 } from '@platform/proto';
import { z } from 'zod';
import { entryOutcome } from './entry-outcome.js';

/** Argument values longer than this are cut in the record (records are for display; history keeps them whole). */
const SUMMARY_VALUE_CHARS = 200;

/**
 * What waiting agents did when a message answered them: the tool exchanges to put in the
 * conversation after the user's message (the resumed call and its one result) and the records
 * the turn reports in `toolCalls`. Journaled, so a resumed run reports the same.
 */
export const AgentResults = z.object({
  messages: z.array(z.custom<ChatMessage>()),
  records: z.array(z.custom<ToolCallRecord>()),
});
export type AgentResults = z.infer<typeof AgentResults>;

export const NO_AGENT_RESULTS: AgentResults = { messages: [], records: [] };

function argumentsSummary(json: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(json || '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      return { _raw: cutText(json, SUMMARY_VALUE_CHARS).text };
    return Object.fromEntries(
      Object.entries(parsed as Record<string, unknown>).map(([key, value]) => {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        return [key, text.length > SUMMARY_VALUE_CHARS ? `${cutText(text, SUMMARY_VALUE_CHARS).text}…` : value];
      }),
    );
  } catch {
    return { _raw: cutText(json, SUMMARY_VALUE_CHARS).text };
  }
}

/** A resumed call and its one result. */
export interface ResumedCall {
  /** The resumed call id (`<callId>:resumed`). */
  id: string;
  name: string;
  /** The call's arguments as the history shows them (JSON). */
  argumentsJson: string;
  /** The same, shortened for the turn's record. */
  argumentsSummary: Record<string, unknown>;
  durationMs: number;
  outcome: ToolOutcome;
}

/**
 * A resumed call as its own tool exchange: the assistant message that calls it and its one
 * result (so every later request view pairs the call with exactly one result), and the record
 * the turn reports in `toolCalls`.
 */
export function resumedExchange(call: ResumedCall): { messages: ChatMessage[]; record: ToolCallRecord } {
  const { id, name, outcome } = call;
  const status = outcome.status === 'waiting' ? 'skipped' : outcome.status;
  const failed = outcome.status !== 'success';
  const errorCode = failed && 'errorCode' in outcome ? outcome.errorCode : undefined;
  return {
    messages: [
      { role: 'assistant', content: null, toolCalls: [{ id, name, arguments: call.argumentsJson }] },
      {
        role: 'tool',
        toolCallId: id,
        toolName: name,
        content: outcome.content,
        status,
        isError: failed,
        ...(errorCode ? { errorCode } : {}),
      },
    ],
    record: {
      callId: id,
      name,
      argumentsSummary: call.argumentsSummary,
      durationMs: Math.max(0, Math.round(call.durationMs)),
      success: !failed,
      status,
      ...(errorCode ? { errorCode } : {}),
      synthetic: false,
      resultChars: outcome.content.length,
      turnUsage: ZERO_USAGE,
      iteration: 0,
    },
  };
}

/**
 * A finished agent as its own tool exchange: the agent-tool called under the resumed call id
 * (`<callId>:resumed`) with the fields it ran with, and its result. `durationMs` is how long the
 * pool took to finish it.
 */
export function agentResultsOf(
  finished: ReadonlyArray<{ entry: agentPoolV1.AgentEntry; durationMs: number }>,
): AgentResults {
  const exchanges = finished.map(({ entry, durationMs }) => {
    const args = entry.collectedJson || '{}';
    return resumedExchange({
      id: resumedCallId(entry.callId),
      name: entry.agentName,
      argumentsJson: args,
      argumentsSummary: argumentsSummary(args),
      durationMs,
      outcome: entryOutcome(entry),
    });
  });
  return { messages: exchanges.flatMap((e) => e.messages), records: exchanges.map((e) => e.record) };
}

/**
 * The turn's result with the agents' exchanges first: they happened before the loop's first
 * model call, so history stores them right after the user's message and `toolCalls` counts them.
 */
export function withAgentResults(result: LoopResult, agents: AgentResults): LoopResult {
  if (agents.messages.length === 0 && agents.records.length === 0) return result;
  return {
    ...result,
    messages: [...agents.messages, ...result.messages],
    toolCalls: [...agents.records, ...result.toolCalls],
  };
}
