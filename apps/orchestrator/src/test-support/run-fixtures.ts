// Runs and loop results for the journal and ordering tests.
import type { LoopResult, TokenUsage } from '@platform/agent-loop';
import type { NewRun } from '../journal/run-records.js';

/** A new user message's run in a conversation (tenant `acme` unless given). */
export function messageRun(runId: string, conversationId: string, tenantId = 'acme'): NewRun {
  return { runId, tenantId, conversationId, profile: 'default', content: 'hello', tier: '', stream: false, timeZone: '' };
}

/** The result of a run that answered `done` in one model call, having used `usage`. */
export function answeredResult(runId: string, usage: Pick<TokenUsage, 'inputTokens' | 'outputTokens'> = { inputTokens: 1, outputTokens: 1 }): LoopResult {
  return {
    runId,
    response: 'done',
    stopReason: 'final_answer',
    turns: 1,
    usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens },
    durationMs: 1,
    pendingAgents: [],
    toolCalls: [],
    messages: [{ role: 'assistant', content: 'done' }],
    transcript: [],
  };
}
