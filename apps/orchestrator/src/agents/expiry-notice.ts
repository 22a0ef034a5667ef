import { ZERO_USAGE, type LoopResult } from '@platform/agent-loop';
import { z } from 'zod';
import { resumedCallId } from '@platform/contracts';

const Notice = z.object({ callId: z.string(), agentName: z.string(), reason: z.string(), message: z.string() });

/** The result of an `agent_expired` run: the expired agent's call, answered with a timeout saying so. */
export function expiryNoticeResult(runId: string, content: string): LoopResult {
  const notice = Notice.parse(JSON.parse(content));
  const id = resumedCallId(notice.callId);
  return {
    runId,
    response: notice.message,
    stopReason: 'final_answer',
    turns: 0,
    usage: ZERO_USAGE,
    durationMs: 0,
    pendingAgents: [],
    toolCalls: [],
    messages: [
      { role: 'assistant', content: null, toolCalls: [{ id, name: notice.agentName, arguments: '{}' }] },
      { role: 'tool', toolCallId: id, toolName: notice.agentName, content: notice.message, status: 'timeout', isError: true, synthetic: true, errorCode: notice.reason.toUpperCase() },
    ],
    transcript: [],
  };
}
