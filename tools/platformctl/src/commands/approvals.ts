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
