// Runs and loop results for the journal, ordering, delegation and plan tests.
import type { LoopResult, TokenUsage } from '@platform/agent-loop';
import type { ClaimedRun, NewRun, RunRecord } from '../journal/run-records.js';

/** A new user message's run in a conversation (tenant `acme` unless given). */
export function messageRun(runId: string, conversationId: string, tenantId = 'acme'): NewRun {
  return {
    runId,
    tenantId,
    conversationId,
    profile: 'default',
    content: 'hello',
    tier: '',
    stream: false,
    timeZone: '',
  };
}

/** The result of a run that answered `done` in one model call, having used `usage`. */
export function answeredResult(
  runId: string,
  usage: Pick<TokenUsage, 'inputTokens' | 'outputTokens'> = { inputTokens: 1, outputTokens: 1 },
): LoopResult {
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

/** A run this orchestrator claimed (first attempt, nothing journaled yet) under `profile`. */
export function claimedRun(profile: string, content = 'hi', extra: Partial<ClaimedRun> = {}): ClaimedRun {
  return {
    ...messageRun('run-1', 'c1'),
    profile,
    content,
    kind: 'message',
    agentsMayWait: false,
    epoch: 1,
    input: null,
    attempts: 1,
    cancelRequested: false,
    createdAt: new Date(),
    ...extra,
  };
}

/** A child run that ended with `status`, answering `response`, as the parent reads it back. */
export function finishedChild(
  child: { runId: string; conversationId: string; profile: string; content: string },
  status: RunRecord['status'],
  response: string,
): RunRecord {
  return {
    ...child,
    tenantId: 'acme',
    status,
    stopReason: status === 'completed' ? 'final_answer' : status === 'failed' ? 'model_error' : status,
    tier: '',
    stream: false,
    timeZone: '',
    result: {
      runId: child.runId,
      response,
      stopReason: 'final_answer',
      turns: 1,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      durationMs: 1,
      pendingAgents: [],
      toolCalls: [],
    },
    transcript: [],
    cancelRequested: false,
    createdAt: new Date(),
    finishedAt: new Date(),
    traceId: null,
  };
}
