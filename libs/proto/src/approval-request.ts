import type { AgentEntry } from './gen/agentpool/v1/agent_pool.js';

/**
 * An agent's approval request as JSON clients see it: in a run's result and events (with the
 * entry) and in the approvals API (with the entry's context). One shape for both.
 */
export interface ApprovalRequestView {
  approvalId: string;
  agentName: string;
  /** One line, e.g. "Send email to team@example.com". */
  actionSummary: string;
  /** The action's details (an object; anything else the runner sent reads as `{}`). */
  details: Record<string, unknown>;
  /** The decisions offered: "approve", "edit", "cancel". */
  options: string[];
  allowModification: boolean;
  timeoutMinutes: number;
  /** When the request expires (ISO 8601), if the entry has a deadline. */
  expiresAt: string | null;
}

function detailsOf(json: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(json || '{}');
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The entry's approval request, or undefined when it has none. */
export function approvalRequestOf(entry: AgentEntry): ApprovalRequestView | undefined {
  const a = entry.approval;
  if (!a) return undefined;
  return {
    approvalId: a.approvalId,
    agentName: a.agentName,
    actionSummary: a.actionSummary,
    details: detailsOf(a.detailsJson),
    options: a.options,
    allowModification: a.allowModification,
    timeoutMinutes: a.timeoutMinutes,
    expiresAt: entry.expiresAt?.toISOString() ?? null,
  };
}
