import { approvalRequestOf, type agentPoolV1 } from '@platform/proto';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError } from '../http-errors.js';
import { JsonObject, OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { clientGone } from '../turns/client-gone.js';
import {
  decideApproval,
  pendingApprovals,
  visibleApprovalEntries,
  type ApprovalDecisionDeps,
} from '../turns/approval-decision.js';
import { TURN_RESPONSE_EXAMPLE, TurnResponse, turnResponseBody } from '../turns/turn-response.js';
import { TURN_ERRORS } from './conversations.js';
import { ApiErrorCodes } from '../error-codes.js';

export type ApprovalRoutesOptions = ApprovalDecisionDeps;

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

/**
 * Structured approvals: list what waits for the tenant's decision, and decide one. A decision is
 * a message to the approval's conversation that the pending-agent step applies before the loop
 * continues, so the answer has the same shape as a message's.
 */
export function registerApprovalRoutes(router: OperationRouter, options: ApprovalRoutesOptions): void {
  const visible = (request: FastifyRequest, entries: agentPoolV1.AgentEntry[]): Promise<agentPoolV1.AgentEntry[]> =>
    visibleApprovalEntries(options, request, entries);

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
    const { result, conversationId } = await decideApproval(
      options,
      request,
      params.approvalId,
      body,
      clientGone(reply),
    );
    return { status: 200, body: turnResponseBody(result, conversationId) };
  });
}
