import type { PendingAgent, ToolOutcome } from '@platform/agent-loop';
import { USER_CANCELLED_MESSAGE } from '@platform/contracts';
import { approvalRequestOf, type agentPoolV1 } from '@platform/proto';

/** An agent's result as the model reads it: text as is, anything else as JSON. */
function resultText(resultJson: string): string {
  if (!resultJson) return '';
  try {
    const parsed: unknown = JSON.parse(resultJson);
    return typeof parsed === 'string' ? parsed : JSON.stringify(parsed);
  } catch {
    return resultJson;
  }
}

/** The structured approval request of a waiting entry, as clients and the loop's result carry it. */
export function approvalOf(entry: agentPoolV1.AgentEntry): Record<string, unknown> | undefined {
  const request = approvalRequestOf(entry);
  return request ? { ...request, entryId: entry.entryId } : undefined;
}

/** The pending-agent record of a waiting entry (what the run reports as waiting). */
function pendingOf(entry: agentPoolV1.AgentEntry): Omit<PendingAgent, 'callId'> {
  const waitingFor =
    (entry.status === 'paused' ? entry.pausedFrom : entry.status) === 'waiting_for_approval' ? 'approval' : 'input';
  const approval = waitingFor === 'approval' ? approvalOf(entry) : undefined;
  return { agentName: entry.agentName, waitingFor, prompt: entry.prompt, ...(approval ? { approval } : {}) };
}

export function isWaiting(entry: agentPoolV1.AgentEntry): boolean {
  return entry.status === 'waiting_for_input' || entry.status === 'waiting_for_approval' || entry.status === 'paused';
}

/**
 * How an agent-tool call ended, from its pool entry: completed -> its result; cancelled by the
 * user -> an error result the model must respect; waiting -> the loop stops for the user;
 * expired or failed (e.g. its schema changed while it waited) -> a failed result saying why.
 */
export function entryOutcome(entry: agentPoolV1.AgentEntry): ToolOutcome {
  switch (entry.status) {
    case 'completed':
      return { status: 'success', content: resultText(entry.resultJson) };
    case 'cancelled':
      return {
        status: 'cancelled',
        content: resultText(entry.resultJson) || USER_CANCELLED_MESSAGE,
        errorCode: 'USER_CANCELLED',
      };
    case 'waiting_for_input':
    case 'waiting_for_approval':
    case 'paused':
      return { status: 'waiting', content: entry.prompt, pending: pendingOf(entry) };
    case 'expired':
      return {
        status: 'timeout',
        content: entry.errorMessage || `the user did not answer ${entry.agentName} in time; the action was not taken.`,
        errorCode: entry.errorCode || 'AGENT_EXPIRED',
      };
    default:
      return {
        status: 'failed',
        content: entry.errorMessage || `${entry.agentName} failed.`,
        errorCode: entry.errorCode || 'AGENT_FAILED',
      };
  }
}
