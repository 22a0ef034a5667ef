import type { PendingAgent, ToolOutcome } from '@platform/agent-loop';
import type { agentPoolV1 } from '@platform/proto';
import { z } from 'zod';
import type { ApprovalDecisionInput } from '../journal/run-types.js';
import { readAnswer, type NumericConflict } from './committee-vote.js';

/** What a committee with strategy `user` puts to the user: the `approval` of its pending call. */
export const CommitteeDecisionRequest = z.object({
  kind: z.literal('committee_decision'),
  approvalId: z.string().min(1),
  committee: z.string(),
  question: z.string(),
  /** One per member that answered: the user picks one by its role. */
  options: z
    .array(
      z.object({
        role: z.string(),
        answer: z.string(),
        value: z.number().nullable(),
        confidence: z.number().nullable(),
      }),
    )
    .min(1),
  conflict: z.custom<NumericConflict>().nullable(),
  /** Every member's result, as the committee's result reports them. */
  members: z.array(z.record(z.string(), z.unknown())),
  /** When the request expires (ISO 8601): a later reply gets a `timeout` result. */
  expiresAt: z.string(),
});
export type CommitteeDecisionRequest = z.infer<typeof CommitteeDecisionRequest>;

/** The committee request a pending call carries, or undefined when it carries none (another kind of pending call). */
export function committeeRequestOf(pending: PendingAgent): CommitteeDecisionRequest | undefined {
  const parsed = CommitteeDecisionRequest.safeParse(pending.approval);
  return parsed.success ? parsed.data : undefined;
}

/** What the agent pool keeps for the request (`StartAgent`'s `user_decision`): listed and decided as an approval. */
export function userDecisionOf(
  request: Omit<CommitteeDecisionRequest, 'kind' | 'approvalId' | 'expiresAt'>,
  expiresInMs: number,
): agentPoolV1.UserDecision {
  const summary = `Choose the ${request.committee} committee's answer to: ${request.question}`;
  return {
    actionSummary: summary.length > 200 ? `${summary.slice(0, 199)}…` : summary,
    detailsJson: JSON.stringify({ kind: 'committee_decision', ...request }),
    prompt: `${summary}${request.conflict ? ` (their numbers disagree, from ${request.conflict.min} to ${request.conflict.max})` : ''}: ${request.options.map((o) => `${o.role}: ${o.answer}`).join('; ')}`,
    expiresInMs,
  };
}

/** The call's waiting outcome: the members' answers put to the user, until `expiresAt`. */
export function askUser(agentName: string, request: CommitteeDecisionRequest): ToolOutcome {
  const lines = [
    `The ${request.committee} committee answered "${request.question}"${request.conflict ? ` and its numbers disagree (from ${request.conflict.min} to ${request.conflict.max})` : ''}:`,
    ...request.options.map((o) => `- ${o.role}: ${o.answer}`),
    `Reply with the role whose answer you accept (${request.options.map((o) => o.role).join(', ')}), or with your own answer; "cancel" to decide nothing. This request expires at ${request.expiresAt}.`,
  ];
  const prompt = lines.join('\n');
  return {
    status: 'waiting',
    content: prompt,
    pending: { agentName, waitingFor: 'approval', prompt, approval: request },
  };
}

/** The committee call's result when the user did not decide in time (`COMMITTEE_DECISION_EXPIRED`). */
export function decisionExpired(
  committee: string,
  expiresAt?: string,
): { status: 'timeout'; content: string; errorCode: string } {
  return {
    status: 'timeout',
    content: `the user did not decide for the ${committee} committee in time${expiresAt ? ` (the request expired at ${expiresAt})` : ''}; decide without it or ask again.`,
    errorCode: 'COMMITTEE_DECISION_EXPIRED',
  };
}

/** How the user answered: a message in the conversation, or a decision through the approvals API. */
export interface UserReply {
  text: string;
  approval?: ApprovalDecisionInput;
}

const normalise = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, '');

/**
 * The committee call's one result from the user's reply: the member they named (a reply that is
 * a role, or names exactly one role), or the answer they typed; `cancel` cancels; a reply after
 * `expiresAt` is a `timeout` (`COMMITTEE_DECISION_EXPIRED`).
 */
export function decideByUser(request: CommitteeDecisionRequest, reply: UserReply, now: number): ToolOutcome {
  if (now > Date.parse(request.expiresAt)) return decisionExpired(request.committee, request.expiresAt);
  const decision = reply.approval;
  const picked: unknown = decision ? (decision.changes?.['answer'] ?? decision.changes?.['choice']) : reply.text;
  const typed = typeof picked === 'string' || typeof picked === 'number' ? String(picked) : '';
  if (decision?.decision === 'cancel' || normalise(typed) === 'cancel') {
    return {
      status: 'cancelled',
      content: `The user cancelled the ${request.committee} committee's decision.`,
      errorCode: 'USER_CANCELLED',
    };
  }
  const said = normalise(typed);
  const exact = request.options.find((o) => normalise(o.role) === said);
  const named = request.options.filter((o) =>
    new RegExp(`(^|[^a-z0-9_.-])${o.role.toLowerCase().replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}($|[^a-z0-9_.-])`).test(
      said,
    ),
  );
  const chosen = exact ?? (named.length === 1 ? named[0] : undefined);
  if (!chosen && !said)
    return { status: 'invalid', content: 'the reply chose no answer', errorCode: 'INVALID_ARGUMENTS' };
  const own = chosen ? undefined : readAnswer('user', typed.trim());
  return {
    status: 'success',
    content: JSON.stringify({
      answer: chosen ? chosen.answer : typed.trim(),
      ...(chosen?.value != null ? { value: chosen.value } : own?.value !== undefined ? { value: own.value } : {}),
      strategy: 'user',
      decidedBy: 'user',
      choice: chosen ? 'member' : 'typed',
      winners: chosen ? [chosen.role] : [],
      conflict: request.conflict,
      members: request.members,
    }),
  };
}
