import { ApprovalDecision, shortenText, TASK_INSTRUCTION_PARAMETER, type ApprovalRequest } from '@platform/contracts';
import { showValue } from './agent-prompts.js';
import type { AgentApproval, AgentToolDefinition } from './define-agent-tool.js';

const MAX_SUMMARY_CHARS = 200;

/** The collected fields without `task_instruction`: what the user is shown by default. */
function fieldDetails(collected: Record<string, unknown>): Record<string, unknown> {
  const { [TASK_INSTRUCTION_PARAMETER]: _instruction, ...details } = collected;
  return details;
}

/** "send_email: recipient=team@example.com, subject=Q3" — the summary when the agent gives none. */
function defaultSummary(agent: AgentToolDefinition, collected: Record<string, unknown>): string {
  const parts = Object.entries(fieldDetails(collected)).map(([key, value]) => `${key}=${showValue(value)}`);
  const summary = parts.length ? `${agent.name}: ${parts.join(', ')}` : `Run ${agent.name}`;
  return shortenText(summary, MAX_SUMMARY_CHARS);
}

/** Completes what the agent said into a full `ApprovalRequest`. */
function toApprovalRequest(
  agent: AgentToolDefinition,
  approval: Partial<AgentApproval>,
  collected: Record<string, unknown>,
): ApprovalRequest {
  // `edit` changes fields: without fields there is nothing to change.
  const allowModification = (approval.allowModification ?? true) && agent.fields.length > 0;
  const minutes = approval.timeoutMinutes ?? agent.approvalTimeoutMinutes;
  return {
    agentName: agent.name,
    actionSummary: approval.actionSummary?.trim() || defaultSummary(agent, collected),
    details: approval.details ?? fieldDetails(collected),
    options: allowModification ? [...ApprovalDecision.options] : ['approve', 'cancel'],
    timeoutMinutes: Number.isFinite(minutes) ? Math.max(1, Math.round(minutes)) : agent.approvalTimeoutMinutes,
    allowModification,
  };
}

/**
 * The approval this call needs, or `undefined` when it may run at once: never with
 * `approval: false`, always with `true`, and as the agent's function decides otherwise.
 */
export async function approvalFor(
  agent: AgentToolDefinition,
  values: Record<string, unknown>,
  collected: Record<string, unknown>,
): Promise<ApprovalRequest | undefined> {
  if (agent.approval === false) return undefined;
  const approval = agent.approval === true ? {} : await agent.approval(values);
  return approval === undefined ? undefined : toApprovalRequest(agent, approval, collected);
}

/**
 * The request to answer in an approval step: what the agent asks for these fields, or (when it
 * would not ask now, e.g. the caller sent an approval step anyway) the default request.
 */
export async function pendingApproval(
  agent: AgentToolDefinition,
  values: Record<string, unknown>,
  collected: Record<string, unknown>,
): Promise<ApprovalRequest> {
  return (await approvalFor(agent, values, collected)) ?? toApprovalRequest(agent, {}, collected);
}
