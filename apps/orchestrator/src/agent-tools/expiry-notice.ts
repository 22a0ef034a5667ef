import { ZERO_USAGE, type LoopResult } from '@platform/agent-loop';
import { z } from 'zod';
import { resumedCallId } from '@platform/contracts';
import { COMMITTEE_TOOL_PREFIX } from '../teams/committee.js';
import { decisionExpired } from '../teams/committee-user.js';

const Notice = z.object({ callId: z.string(), agentName: z.string(), reason: z.string(), message: z.string() });

/** The result of an `agent_expired` run: the expired agent's call, answered with a timeout saying so. */
export function expiryNoticeResult(runId: string, content: string): LoopResult {
  const notice = Notice.parse(JSON.parse(content));
  const id = resumedCallId(notice.callId);
  // A committee's decision put to the user (strategy `user`) expired: the call's committee result.
  const committee = notice.agentName.startsWith(COMMITTEE_TOOL_PREFIX)
    ? decisionExpired(notice.agentName.slice(COMMITTEE_TOOL_PREFIX.length))
    : undefined;
  const text = committee?.content ?? notice.message;
  const errorCode = committee?.errorCode ?? notice.reason.toUpperCase();
  return {
    runId,
    response: committee ? `The user did not decide in time: ${text}` : notice.message,
    stopReason: 'final_answer',
    turns: 0,
    usage: ZERO_USAGE,
    durationMs: 0,
    pendingAgents: [],
    toolCalls: [],
    messages: [
      { role: 'assistant', content: null, toolCalls: [{ id, name: notice.agentName, arguments: '{}' }] },
      {
        role: 'tool',
        toolCallId: id,
        toolName: notice.agentName,
        content: text,
        status: 'timeout',
        isError: true,
        synthetic: true,
        errorCode,
      },
    ],
    transcript: [],
  };
}
