import { approvalRefusal, type ApprovalRefusal, type TenantRole } from '@platform/contracts';
import type { agentPoolV1 } from '@platform/proto';
import type { ClaimedRun, RunAgent } from '../journal/run-records.js';

export interface ApprovalDecidersDependencies {
  /** The run that asked for the approval: its end user and agent version. */
  runOf(tenantId: string, runId: string): Promise<{ subject?: string; agent?: RunAgent } | undefined>;
  /** The roles that agent version names as its approvers, if any. */
  approverRolesOf(tenantId: string, agent: RunAgent): Promise<readonly TenantRole[] | undefined>;
}

/**
 * Who may decide a waiting approval with a message (a reply that reads as a decision, or the
 * approvals API's decision turn): the sender of the message (its subject and role, kept with the
 * run) against the run that asked, by the one rule of libs/contracts `approvalRefusal`. The
 * approvals API checks the same rule before it sends; this is where every path meets it.
 */
export class ApprovalDeciders {
  constructor(private readonly deps: ApprovalDecidersDependencies) {}

  /** Undefined when the message's sender may decide the entry's approval; otherwise why not. */
  async refusal(run: ClaimedRun, entry: agentPoolV1.AgentEntry): Promise<ApprovalRefusal | undefined> {
    const caller = { role: run.senderRole ?? 'member', subject: run.subject };
    if (caller.role === 'admin') return undefined;
    const asking = entry.runId ? await this.deps.runOf(run.tenantId, entry.runId) : undefined;
    const approverRoles = asking?.agent ? await this.deps.approverRolesOf(run.tenantId, asking.agent) : undefined;
    return approvalRefusal(caller, { runSubject: asking?.subject, approverRoles });
  }
}

/** What a user is told when their message would decide an approval they may not decide. */
export function refusalText(actionSummary: string, refusal: ApprovalRefusal): string {
  const why =
    refusal.reason === 'approver_role'
      ? `this agent's approvals are decided by ${refusal.approverRoles.join(' or ')} (or an admin)`
      : "it belongs to another user's run, and only that user or a tenant admin may decide it";
  return `You cannot decide "${actionSummary}": ${why}. It is still waiting.`;
}
