import type { ApiClient } from '../api-client.js';
import { oneLine, table } from '../format.js';

interface Approval {
  approvalId: string;
  agentName: string;
  actionSummary: string;
  status: string;
  expiresAt: string | null;
  conversationId: string;
  runId: string;
  source: { kind: string; taskId?: string };
  decidedBy: string | null;
}

/** `approvals`: the tenant's pending approvals, soonest to expire first. */
export async function listApprovals(api: ApiClient): Promise<{ json: unknown; text: string }> {
  const body = await api.get<{ approvals: Approval[] }>('v1/approvals');
  const approvals = [...body.approvals].sort((a, b) => (a.expiresAt ?? '').localeCompare(b.expiresAt ?? ''));
  return {
    json: body,
    text: table(
      ['APPROVAL', 'AGENT', 'STATUS', 'EXPIRES', 'CONVERSATION', 'RUN', 'SOURCE', 'ACTION'],
      approvals.map((a) => [
        a.approvalId,
        a.agentName,
        a.status,
        a.expiresAt,
        a.conversationId,
        a.runId,
        a.source.kind === 'trigger' ? `task ${a.source.taskId}` : a.source.kind,
        oneLine(a.actionSummary, 60),
      ]),
    ),
  };
}

/** `approvals show <approvalId>`: one approval, waiting or decided, with who decided it. */
export async function showApproval(api: ApiClient, approvalId: string): Promise<{ json: unknown; text: string }> {
  const a = await api.get<Approval>(`v1/approvals/${encodeURIComponent(approvalId)}`);
  return {
    json: a,
    text: table(
      ['APPROVAL', 'AGENT', 'STATUS', 'DECIDED BY', 'CONVERSATION', 'RUN', 'ACTION'],
      [[a.approvalId, a.agentName, a.status, a.decidedBy, a.conversationId, a.runId, oneLine(a.actionSummary, 60)]],
    ),
  };
}
