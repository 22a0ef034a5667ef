import type { RunProtocol } from '@platform/contracts';
import type { agentPoolV1, agentsV1, orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyRequest } from 'fastify';
import { checkDecider } from '../access/approval-decider.js';
import { visibleApprovals } from '../access/approval-visibility.js';
import type { ConversationClient } from '../access/conversation-caller.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';
import { principalOf } from '../principal.js';
import { newRunId, type TurnRunner } from './turn-runner.js';

/** What deciding an approval needs: the pool that keeps it, the run and agent lookups, the turn runner. */
export interface ApprovalDecisionDeps {
  agentPool: PromiseClient<agentPoolV1.AgentPoolServiceClient>;
  /** Finds the conversation a delegated run's approval is answered in (its team's root). */
  orchestrator?: PromiseClient<orchestratorV1.OrchestratorServiceClient> | undefined;
  /** Reads the approver roles of the agent version a run runs under (docs/access.md#approvals); absent: none. */
  agents?: PromiseClient<agentsV1.AgentServiceClient> | undefined;
  /** Which conversations a member reaches (they see those conversations' approvals); absent: every approval of the tenant. */
  conversations?: Pick<ConversationClient, 'checkConversationAccess'> | undefined;
  turns: Pick<TurnRunner, 'run'>;
  turnWaitMs: number;
}

/** A decision on an approval request. */
export interface ApprovalDecision {
  decision: 'approve' | 'edit' | 'cancel';
  /** For "edit": the fields to change, e.g. {"seat": "window"}. */
  changes?: Record<string, unknown> | undefined;
  /** The agent profile that continues the conversation; omitted = the default profile. */
  profile?: string | undefined;
}

/**
 * The source of the run a decision starts: a decision on a triggered run's approval continues that
 * task's run, so its end reaches the trigger service (which delivers it on the task's channel).
 */
function decisionSource(entry: agentPoolV1.AgentEntry): orchestratorV1.MessageSource | undefined {
  return entry.source?.kind === 'trigger' && entry.source.taskId
    ? { kind: 'trigger', taskId: entry.source.taskId, triggerType: 'approval', originRunId: entry.runId }
    : undefined;
}

/** The tenant's entries that wait for a decision on an approval request (paused ones included). */
export async function pendingApprovals(
  pool: ApprovalDecisionDeps['agentPool'],
  tenantId: string,
): Promise<agentPoolV1.AgentEntry[]> {
  const { entries } = await pool.listPending({ tenantId, conversationId: '' });
  return entries.filter(
    (e) =>
      e.approval &&
      (e.status === 'waiting_for_approval' || (e.status === 'paused' && e.pausedFrom === 'waiting_for_approval')),
  );
}

/** Conversations of child runs (delegations, docs/plans-and-teams.md) are named after the run. */
const DELEGATION_CONVERSATION = 'delegation:';

/**
 * Where an approval is answered: its own conversation, or, for an approval a child run (a
 * delegation) asked for, the conversation of the run a user started at the top of the team: the
 * decision goes there, the child resumes, then its parent.
 */
async function answeringConversation(
  deps: Pick<ApprovalDecisionDeps, 'orchestrator'>,
  tenantId: string,
  entry: agentPoolV1.AgentEntry,
): Promise<string> {
  if (!entry.conversationId.startsWith(DELEGATION_CONVERSATION) || !entry.runId || !deps.orchestrator)
    return entry.conversationId;
  const run = await deps.orchestrator.getRun({ tenantId, runId: entry.runId });
  const delegation = run.delegationJson ? (JSON.parse(run.delegationJson) as { rootConversationId?: unknown }) : {};
  return typeof delegation.rootConversationId === 'string' ? delegation.rootConversationId : entry.conversationId;
}

/** The approvals of `entries` the caller sees: those of the conversations it reaches (docs/access.md#approvals). */
export function visibleApprovalEntries(
  deps: Pick<ApprovalDecisionDeps, 'conversations' | 'orchestrator'>,
  request: FastifyRequest,
  entries: agentPoolV1.AgentEntry[],
): Promise<agentPoolV1.AgentEntry[]> {
  return visibleApprovals(deps.conversations, request, entries, (entry) =>
    answeringConversation(deps, principalOf(request).tenantId, entry),
  );
}

/** What the decision reads like in the conversation's history. */
function decisionText(decision: ApprovalDecision, summary: string): string {
  if (decision.decision === 'approve') return `Approved: ${summary}`;
  if (decision.decision === 'cancel') return `Cancelled: ${summary}`;
  return `Approved with changes ${JSON.stringify(decision.changes ?? {})}: ${summary}`;
}

/**
 * Decides an approval for the request's caller and runs the decision as a turn of the approval's
 * conversation (the pending-agent step applies it before the loop continues). Another tenant's
 * approval, or one of a conversation the caller does not reach, is 404 APPROVAL_NOT_FOUND exactly
 * like a missing one; a caller who may not decide it is 403 FORBIDDEN_ROLE.
 */
export async function decideApproval(
  deps: ApprovalDecisionDeps,
  request: FastifyRequest,
  approvalId: string,
  decision: ApprovalDecision,
  signal: AbortSignal,
  /** The protocol the decision came over (default `rest`), and the id of the run it starts (default: a new one). */
  run: { protocol?: RunProtocol; runId?: string } = {},
): Promise<{ result: orchestratorV1.HandleMessageResponse; conversationId: string }> {
  const principal = principalOf(request);
  if (decision.decision === 'edit' && !decision.changes)
    throw new HttpError(400, ApiErrorCodes.CHANGES_REQUIRED, 'an "edit" decision needs "changes"');
  const found = (await pendingApprovals(deps.agentPool, principal.tenantId)).find(
    (e) => e.approval?.approvalId === approvalId,
  );
  const [entry] = found ? await visibleApprovalEntries(deps, request, [found]) : [];
  if (!entry) throw new HttpError(404, ApiErrorCodes.APPROVAL_NOT_FOUND, `no pending approval '${approvalId}'`);
  // Only the run's end user, an approver the agent names, or an admin (403 FORBIDDEN_ROLE).
  await checkDecider(principal, entry.runId, deps);
  if (entry.status === 'paused')
    throw new HttpError(409, ApiErrorCodes.APPROVAL_PAUSED, 'this approval is paused; resume it first');
  if (!entry.approval!.options.includes(decision.decision))
    throw new HttpError(
      409,
      ApiErrorCodes.DECISION_NOT_OFFERED,
      `this request offers ${entry.approval!.options.join(', ')}, not ${decision.decision}`,
    );
  if (decision.decision === 'edit' && !entry.approval!.allowModification)
    throw new HttpError(
      409,
      ApiErrorCodes.CHANGES_NOT_ALLOWED,
      'this action cannot be changed, only approved or cancelled',
    );
  const conversationId = await answeringConversation(deps, principal.tenantId, entry);
  const result = await deps.turns.run(
    {
      tenantId: principal.tenantId,
      conversationId,
      content: decisionText(decision, entry.approval!.actionSummary),
      requestId: request.id,
      profile: decision.profile ?? '',
      protocol: run.protocol ?? 'rest',
      stream: false,
      tier: principal.tier ?? '',
      timeZone: '',
      // The decider is the decision turn's subject: the run's transcript names who decided.
      subject: principal.subject ?? '',
      // Its role: a reply that reads as an approval decision decides only what the role may. The
      // decision reaches the run's conversation whoever owns it (the decider was checked above).
      role: principal.role,
      approvalId,
      decision: decision.decision,
      changesJson: decision.changes ? JSON.stringify(decision.changes) : '',
      source: decisionSource(entry),
    },
    run.runId ?? newRunId(),
    Date.now() + deps.turnWaitMs,
    signal,
  );
  return { result, conversationId };
}
