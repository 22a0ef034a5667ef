import type { ToolCallContext, ToolCallRequest, ToolDescription, ToolOutcome } from '@platform/agent-loop';
import type { RunRecord } from '../journal/run-records.js';
import type { CommitteeSpec } from '../profiles.js';
import type { ChildRuns, ChildTask, ParentEvents } from './child-runs.js';
import { askUser, userDecisionOf } from './committee-user.js';
import type { PoolAgents } from '../agent-tools/pool-agents.js';
import { readAnswer, resolveAnswers, type MemberAnswer, type Resolution } from './committee-vote.js';

export const COMMITTEE_TOOL_PREFIX = 'ask_committee_';

export function committeeToolName(name: string): string {
  return `${COMMITTEE_TOOL_PREFIX}${name}`;
}

const QUESTION_SCHEMA = {
  type: 'object',
  properties: {
    question: {
      type: 'string',
      minLength: 1,
      description: 'The question, self-contained: every member sees only this text.',
    },
  },
  required: ['question'],
  additionalProperties: false,
};

export interface CommitteeScope {
  parent: ChildTask['parent'];
  events: ParentEvents;
  handingOver: () => boolean;
  /** Why this role may not be asked from here (a loop, the depth limit, access); undefined when it may. */
  refusal: (role: string) => ToolOutcome | undefined;
  defaultTimeoutMs: number;
  /** Where a `user` committee's decision waits: the agent pool, as an approval request. */
  userDecisions?: Pick<PoolAgents, 'askUser'> | undefined;
}

interface MemberResult {
  role: string;
  childRunId?: string;
  status: string;
  answer?: MemberAnswer;
  error?: string;
}

/**
 * The committee step: one question to several roles at once, each a child run (ids derived from
 * the call and the role, so a resumed parent finds them), a failure of one never cancelling the
 * others; the answers are resolved by the committee's strategy, and numeric answers further apart
 * than its tolerance are reported as a conflict. The call's one result is JSON: the answer, how
 * it was decided, the conflict (or null) and every member's answer with its child run.
 */
export class CommitteeTool {
  constructor(
    private readonly children: ChildRuns,
    private readonly scope: CommitteeScope,
  ) {}

  describe(spec: CommitteeSpec): ToolDescription {
    return {
      name: committeeToolName(spec.name),
      description: `Ask the ${spec.name} committee (${spec.roles.join(', ')}) the same question and get their resolved answer: ${spec.description}`,
      parameters: QUESTION_SCHEMA,
      kind: 'agent',
      timeoutMs: (spec.timeoutMs ?? this.scope.defaultTimeoutMs) * (spec.strategy === 'arbiter' ? 2 : 1),
      sideEffect: 'external',
      failureClass: 'coordination',
    };
  }

  async ask(spec: CommitteeSpec, call: ToolCallRequest, context: ToolCallContext): Promise<ToolOutcome> {
    const question = call.arguments['question'];
    if (typeof question !== 'string' || !question.trim() || question.includes('\u0000')) {
      return {
        status: 'invalid',
        content: `'${call.name}' needs a non-empty "question" string.`,
        errorCode: 'INVALID_ARGUMENTS',
      };
    }
    const members = await Promise.all(
      spec.roles.map((role) => this.member(role, `${call.id}-${role}`, question, context)),
    );
    const answered = members.filter((m): m is MemberResult & { answer: MemberAnswer } => m.answer !== undefined);
    if (answered.length === 0) {
      return {
        status: 'failed',
        content: `no member of the ${spec.name} committee answered: ${members.map((m) => `${m.role}: ${m.error ?? m.status}`).join('; ')}`,
        errorCode: 'COMMITTEE_FAILED',
      };
    }
    const memberViews = members.map((m) => ({
      role: m.role,
      status: m.status,
      childRunId: m.childRunId ?? null,
      answer: m.answer?.text ?? null,
      value: m.answer?.value ?? null,
      confidence: m.answer?.confidence ?? null,
      error: m.error ?? null,
    }));
    if (spec.strategy === 'user') {
      // The user decides: the answers go to them as an approval request the agent pool keeps
      // (listed by the approvals API, expired at its time); the parent's turn waits.
      await this.children.markWaiting(this.scope.parent);
      const request = {
        committee: spec.name,
        question,
        options: answered.map((m) => ({
          role: m.role,
          answer: m.answer.text,
          value: m.answer.value ?? null,
          confidence: m.answer.confidence ?? null,
        })),
        conflict: resolveAnswers(
          'majority',
          answered.map((m) => m.answer),
          spec.tolerance,
        ).conflict,
        members: memberViews,
      };
      if (!this.scope.userDecisions)
        return {
          status: 'failed',
          content: `the ${spec.name} committee cannot ask the user here (no agent pool)`,
          errorCode: 'COMMITTEE_FAILED',
        };
      const registered = await this.scope.userDecisions.askUser(
        this.scope.parent,
        call,
        context,
        userDecisionOf(request, spec.decisionTimeoutMs),
      );
      if ('status' in registered) return registered;
      return askUser(call.name, {
        kind: 'committee_decision',
        approvalId: registered.approvalId,
        ...request,
        expiresAt: registered.expiresAt,
      });
    }
    const resolution =
      spec.strategy === 'arbiter'
        ? await this.arbitrate(spec, call, question, answered, context)
        : resolveAnswers(
            spec.strategy,
            answered.map((m) => m.answer),
            spec.tolerance,
          );
    if ('status' in resolution) return resolution;
    return {
      status: 'success',
      content: JSON.stringify({
        answer: resolution.answer,
        ...(resolution.value !== undefined ? { value: resolution.value } : {}),
        strategy: spec.strategy,
        decidedBy: resolution.decidedBy,
        winners: resolution.winners,
        conflict: resolution.conflict,
        members: memberViews,
      }),
    };
  }

  private async member(
    role: string,
    callId: string,
    question: string,
    context: ToolCallContext,
  ): Promise<MemberResult> {
    const refused = this.scope.refusal(role);
    if (refused) return { role, status: refused.status, error: refused.content };
    try {
      const record: RunRecord = await this.children.run(
        { parent: this.scope.parent, callId, role, task: question },
        context.signal,
        this.scope.events,
        this.scope.handingOver,
      );
      if (record.status !== 'completed')
        return {
          role,
          childRunId: record.runId,
          status: record.status,
          error: record.result?.response ?? record.status,
        };
      return {
        role,
        childRunId: record.runId,
        status: 'completed',
        answer: readAnswer(role, record.result?.response ?? ''),
      };
    } catch (err) {
      return { role, status: 'failed', error: (err as Error)?.message ?? String(err) };
    }
  }

  /** The arbiter role reads the question and every answer and decides (seed 003: an arbitrator for conflicts). */
  private async arbitrate(
    spec: CommitteeSpec,
    call: ToolCallRequest,
    question: string,
    answered: Array<MemberResult & { answer: MemberAnswer }>,
    context: ToolCallContext,
  ): Promise<Resolution | ToolOutcome> {
    const arbiter = spec.arbiter!;
    const votes = answered.map((m) => m.answer);
    const conflict = resolveAnswers('majority', votes, spec.tolerance).conflict;
    const refused = this.scope.refusal(arbiter);
    if (refused) return refused;
    const brief = [
      `Decide the answer to this question from the members' answers${conflict ? ' (their numbers disagree by more than the tolerance: check their methods)' : ''}.`,
      `Question: ${question}`,
      ...answered.map((m) => `- ${m.role}: ${m.answer.text}`),
    ].join('\n');
    const record = await this.children.run(
      { parent: this.scope.parent, callId: `${call.id}-arbiter`, role: arbiter, task: brief },
      context.signal,
      this.scope.events,
      this.scope.handingOver,
    );
    if (record.status !== 'completed')
      return {
        status: 'failed',
        content: `the arbiter ${arbiter} could not decide: ${record.result?.response ?? record.status}`,
        errorCode: 'COMMITTEE_FAILED',
      };
    const decided = readAnswer(arbiter, record.result?.response ?? '');
    return {
      answer: decided.text,
      ...(decided.value !== undefined ? { value: decided.value } : {}),
      decidedBy: `arbiter:${arbiter}`,
      winners: [arbiter],
      conflict,
    };
  }
}
