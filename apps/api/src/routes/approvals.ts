import { approvalRequestOf, type agentPoolV1, type agentsV1, type orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError } from '../http-errors.js';
import { JsonObject, OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { clientGone } from '../turns/client-gone.js';
import { newRunId, type TurnRunner } from '../turns/turn-runner.js';
import { TURN_RESPONSE_EXAMPLE, TurnResponse, turnResponseBody } from '../turns/turn-response.js';
import { TURN_ERRORS } from './conversations.js';
import { ApiErrorCodes } from '../error-codes.js';
import { checkDecider } from '../access/approval-decider.js';
import { visibleApprovals } from '../access/approval-visibility.js';
import type { ConversationClient } from '../access/conversation-caller.js';

export interface ApprovalRoutesOptions {
  agentPool: PromiseClient<agentPoolV1.AgentPoolServiceClient>;
  /** Finds the conversation a delegated run's approval is answered in (its team's root). */
  orchestrator?: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
  /** Reads the approver roles of the agent version a run runs under (docs/access.md#approvals); absent: none. */
  agents?: PromiseClient<agentsV1.AgentServiceClient>;
  /** Which conversations a member reaches (they see those conversations' approvals); absent: every approval of the tenant. */
  conversations?: Pick<ConversationClient, 'checkConversationAccess'> | undefined;
  turns: TurnRunner;
  turnWaitMs: number;
}

/** An approval id as the agent pool makes them (a lowercase UUID). */
const APPROVAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const DecisionBody = z
  .object({
    decision: z.enum(['approve', 'edit', 'cancel']),
    /** For "edit": the fields to change, e.g. {"seat": "window"}. */
    changes: z.record(z.string(), z.unknown()).optional(),
    /** The agent profile that continues the conversation; omitted = the default profile. */
    profile: z.string().min(1).max(64).optional(),
  })
  .strict();

/** Who started the run an approval belongs to, as the agent pool recorded it: a user, or a trigger's task. */
function sourceOf(entry: agentPoolV1.AgentEntry): { kind: string; taskId?: string } {
  return { kind: entry.source?.kind || 'user', ...(entry.source?.taskId ? { taskId: entry.source.taskId } : {}) };
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

const ApprovalSource = z.object({
  kind: z.string().meta({ description: 'user or trigger.' }),
  taskId: z.string().optional(),
});

/** An approval request as clients see it: what, why, the options, until when, and who started it. */
const Approval = z
  .object({
    approvalId: z.string(),
    agentName: z.string(),
    actionSummary: z.string().meta({ description: 'One line, e.g. "Send email to team@example.com".' }),
    details: JsonObject.meta({ description: "The action's details." }),
    options: z.array(z.string()).meta({ description: 'The decisions offered: approve, edit, cancel.' }),
    allowModification: z.boolean(),
    timeoutMinutes: z.number(),
    expiresAt: OptionalTimestamp,
    status: z.string(),
    prompt: z.string(),
    conversationId: z.string(),
    runId: z.string().nullable(),
    source: ApprovalSource,
    createdAt: OptionalTimestamp,
    decidedBy: z.string().nullable().meta({
      description:
        "Who decided it (the decider's token `sub`); null while it waits, or when it expired or was cancelled.",
    }),
  })
  .meta({ id: 'Approval' });

const APPROVAL_EXAMPLE: z.infer<typeof Approval> = {
  approvalId: 'appr_1',
  agentName: 'mailer',
  actionSummary: 'Send email to team@example.com',
  details: { to: 'team@example.com', subject: 'Launch' },
  options: ['approve', 'edit', 'cancel'],
  allowModification: true,
  timeoutMinutes: 60,
  expiresAt: '2026-06-01T10:30:00.000Z',
  status: 'waiting_for_approval',
  prompt: 'Send this email?',
  conversationId: 'conv-1',
  runId: 'run_1',
  source: { kind: 'user' },
  createdAt: '2026-06-01T09:30:00.000Z',
  decidedBy: null,
};

export const approvalOperations = {
  listApprovals: defineOperation({
    method: 'GET',
    path: '/v1/approvals',
    operationId: 'listApprovals',
    summary: "Approval requests waiting for the tenant's decision",
    tags: ['approvals'],
    access: 'tenant',
    role: 'viewer',
    responses: {
      200: {
        description:
          "Pending approvals (paused ones included) of the conversations the caller reaches: a member's own, shared ones and those no user started; a developer's or admin's every one.",
        body: z.object({ approvals: z.array(Approval) }),
        examples: { one: { approvals: [APPROVAL_EXAMPLE] } },
      },
    },
  }),
  getApproval: defineOperation({
    method: 'GET',
    path: '/v1/approvals/{approvalId}',
    operationId: 'getApproval',
    summary: 'One approval request, waiting or decided, with who decided it',
    tags: ['approvals'],
    access: 'tenant',
    role: 'viewer',
    // The agent pool's approval ids: lowercase UUIDs; anything else is no approval of the tenant's.
    params: z.object({ approvalId: z.string().regex(APPROVAL_ID) }),
    invalid: { params: { status: 404, code: ApiErrorCodes.APPROVAL_NOT_FOUND, message: 'no such approval' } },
    responses: {
      200: {
        description:
          "The approval; `status` is its entry's (`waiting_for_approval`, `paused`, or where the decision led: `completed`, `cancelled`, `expired`, ...).",
        body: Approval,
        examples: { decided: { ...APPROVAL_EXAMPLE, status: 'completed', decidedBy: 'alice' } },
      },
    },
    errors: { 404: ['APPROVAL_NOT_FOUND'] },
  }),
  decideApproval: defineOperation({
    method: 'POST',
    path: '/v1/approvals/{approvalId}',
    operationId: 'decideApproval',
    summary: "Approve, edit or cancel: the decision runs as a turn of the approval's conversation",
    tags: ['approvals'],
    access: 'tenant',
    role: 'member',
    params: z.object({ approvalId: z.string() }),
    body: DecisionBody,
    bodyExamples: { approve: { decision: 'approve' }, edit: { decision: 'edit', changes: { seat: 'window' } } },
    responses: {
      200: {
        description: 'The turn the decision ran (as sending a message answers).',
        body: TurnResponse,
        examples: { approved: TURN_RESPONSE_EXAMPLE },
      },
    },
    errors: {
      ...TURN_ERRORS,
      400: [...TURN_ERRORS[400], 'CHANGES_REQUIRED'],
      404: ['APPROVAL_NOT_FOUND', ...TURN_ERRORS[404]],
      409: ['APPROVAL_PAUSED', 'DECISION_NOT_OFFERED', 'CHANGES_NOT_ALLOWED'],
    },
  }),
};

function approvalBody(entry: agentPoolV1.AgentEntry): z.infer<typeof Approval> {
  return {
    ...approvalRequestOf(entry)!,
    status: entry.status,
    prompt: entry.prompt,
    conversationId: entry.conversationId,
    runId: entry.runId || null,
    source: sourceOf(entry),
    createdAt: entry.createdAt?.toISOString() ?? null,
    decidedBy: entry.decidedBy ?? null,
  };
}

/** The tenant's entries that wait for a decision on an approval request (paused ones included). */
async function pendingApprovals(
  pool: ApprovalRoutesOptions['agentPool'],
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
  options: ApprovalRoutesOptions,
  tenantId: string,
  entry: agentPoolV1.AgentEntry,
): Promise<string> {
  if (!entry.conversationId.startsWith(DELEGATION_CONVERSATION) || !entry.runId || !options.orchestrator)
    return entry.conversationId;
  const run = await options.orchestrator.getRun({ tenantId, runId: entry.runId });
  const delegation = run.delegationJson ? (JSON.parse(run.delegationJson) as { rootConversationId?: unknown }) : {};
  return typeof delegation.rootConversationId === 'string' ? delegation.rootConversationId : entry.conversationId;
}

/** What the decision reads like in the conversation's history. */
function decisionText(decision: z.infer<typeof DecisionBody>, summary: string): string {
  if (decision.decision === 'approve') return `Approved: ${summary}`;
  if (decision.decision === 'cancel') return `Cancelled: ${summary}`;
  return `Approved with changes ${JSON.stringify(decision.changes ?? {})}: ${summary}`;
}

/**
 * Structured approvals: list what waits for the tenant's decision, and decide one. A decision is
 * a message to the approval's conversation that the pending-agent step applies before the loop
 * continues, so the answer has the same shape as a message's.
 */
export function registerApprovalRoutes(router: OperationRouter, options: ApprovalRoutesOptions): void {
  const visible = (request: FastifyRequest, entries: agentPoolV1.AgentEntry[]): Promise<agentPoolV1.AgentEntry[]> =>
    visibleApprovals(options.conversations, request, entries, (entry) =>
      answeringConversation(options, principalOf(request).tenantId, entry),
    );

  router.add(approvalOperations.listApprovals, async ({ request }) => {
    const { tenantId } = principalOf(request);
    const entries = await visible(request, await pendingApprovals(options.agentPool, tenantId));
    return { status: 200, body: { approvals: entries.map((entry) => approvalBody(entry)) } };
  });

  // An approval of a conversation the caller does not reach is answered as one that does not exist.
  router.add(approvalOperations.getApproval, async ({ params, request }) => {
    const { tenantId } = principalOf(request);
    const { entry } = await options.agentPool.getApproval({ tenantId, approvalId: params.approvalId });
    const [shown] = entry?.approval ? await visible(request, [entry]) : [];
    if (!shown) throw new HttpError(404, ApiErrorCodes.APPROVAL_NOT_FOUND, `no approval '${params.approvalId}'`);
    return { status: 200, body: approvalBody(shown) };
  });

  router.add(approvalOperations.decideApproval, async ({ params, body, request, reply }) => {
    const principal = principalOf(request);
    const { approvalId } = params;
    if (body.decision === 'edit' && !body.changes)
      throw new HttpError(400, ApiErrorCodes.CHANGES_REQUIRED, 'an "edit" decision needs "changes"');
    // Another tenant's approval, or one of a conversation the caller does not reach, is not found,
    // exactly like a missing one.
    const found = (await pendingApprovals(options.agentPool, principal.tenantId)).find(
      (e) => e.approval?.approvalId === approvalId,
    );
    const [entry] = found ? await visible(request, [found]) : [];
    if (!entry) throw new HttpError(404, ApiErrorCodes.APPROVAL_NOT_FOUND, `no pending approval '${approvalId}'`);
    // Only the run's end user, an approver the agent names, or an admin (403 FORBIDDEN_ROLE).
    await checkDecider(principal, entry.runId, options);
    if (entry.status === 'paused')
      throw new HttpError(409, ApiErrorCodes.APPROVAL_PAUSED, 'this approval is paused; resume it first');
    if (!entry.approval!.options.includes(body.decision))
      throw new HttpError(
        409,
        ApiErrorCodes.DECISION_NOT_OFFERED,
        `this request offers ${entry.approval!.options.join(', ')}, not ${body.decision}`,
      );
    if (body.decision === 'edit' && !entry.approval!.allowModification)
      throw new HttpError(
        409,
        ApiErrorCodes.CHANGES_NOT_ALLOWED,
        'this action cannot be changed, only approved or cancelled',
      );
    const conversationId = await answeringConversation(options, principal.tenantId, entry);
    const result = await options.turns.run(
      {
        tenantId: principal.tenantId,
        conversationId,
        content: decisionText(body, entry.approval!.actionSummary),
        requestId: request.id,
        profile: body.profile ?? '',
        protocol: 'rest',
        stream: false,
        tier: principal.tier ?? '',
        timeZone: '',
        // The decider is the decision turn's subject: the run's transcript names who decided.
        subject: principal.subject ?? '',
        // Its role: a reply that reads as an approval decision decides only what the role may. The
        // decision reaches the run's conversation whoever owns it (the decider was checked above).
        role: principal.role,
        approvalId,
        decision: body.decision,
        changesJson: body.changes ? JSON.stringify(body.changes) : '',
        source: decisionSource(entry),
      },
      newRunId(),
      Date.now() + options.turnWaitMs,
      clientGone(reply),
    );
    return { status: 200, body: turnResponseBody(result, conversationId) };
  });
}
