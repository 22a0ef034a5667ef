import type { ModelPort, PendingAgent, ToolOutcome } from '@platform/agent-loop';
import { resumedCallId } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import { NO_AGENT_RESULTS, resumedExchange } from '../agent-tools/agent-results.js';
import type { PoolAgents } from '../agent-tools/pool-agents.js';
import type { ClaimedRun, RunRecords } from '../journal/run-records.js';
import type { ParentEvents } from './child-runs.js';
import { committeeRequestOf, decideByUser, type CommitteeDecisionRequest } from './committee-user.js';
import { journaledDecision, type PendingAgentDecision, type PendingAgentStep } from '../agent-tools/pending-agents.js';

/** The ids the agent pool gives approval requests (UUIDs). */
const POOL_APPROVAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface WaitingCommittee {
  pending: PendingAgent;
  request: CommitteeDecisionRequest;
}

export interface WaitingCommitteesOptions {
  /** The agent pool, where each request waits as an approval until decided once or expired. */
  decisions: Pick<PoolAgents, 'decide'>;
  records: Pick<RunRecords, 'previousRun'>;
  journal: {
    loadDecision(run: ClaimedRun): Promise<unknown>;
    saveDecision(run: ClaimedRun, decision: PendingAgentDecision): Promise<void>;
  };
  now?: () => number;
  logger: Logger;
}

/**
 * The waiting-committee step, first of the pending-agent steps: when the conversation's last turn
 * ended waiting for the user to decide between a committee's answers (strategy `user`), this
 * message is the decision. It becomes the committee call's one result (`<callId>:resumed`,
 * `decidedBy: "user"`), and the parent's loop goes on with it. A decision through the approvals
 * API arrives the same way (with `run.approval`). The request lives in the waiting run's record
 * (Postgres) and as an approval in the agent pool, which takes one decision and expires it; the
 * decision is journaled before the loop.
 */
export class WaitingCommitteesStep implements PendingAgentStep {
  constructor(
    private readonly inner: PendingAgentStep,
    private readonly options: WaitingCommitteesOptions,
  ) {}

  /** `events`: the parent's stream, handed on to the next steps (a resumed child's events are forwarded there). */
  async beforeLoop(run: ClaimedRun, model: ModelPort, events?: ParentEvents): Promise<PendingAgentDecision> {
    const { journal, records } = this.options;
    const journaled = await journaledDecision(run, (r) => journal.loadDecision(r));
    if (journaled) return journaled;
    // A committee that waits marks the conversation (as agents do): other messages cost no query.
    if (run.input || (!run.agentsMayWait && !run.approval)) return this.inner.beforeLoop(run, model, events);
    const previous = await records.previousRun(run.tenantId, run.conversationId, run.runId);
    const waiting =
      previous?.status === 'waiting' ? (previous.result?.pendingAgents ?? []).flatMap((p) => this.requestOf(p)) : [];
    const target = run.approval ? waiting.find((w) => w.request.approvalId === run.approval!.approvalId) : waiting[0];
    if (!target) return this.inner.beforeLoop(run, model, events);
    const now = (this.options.now ?? Date.now)();
    const outcome = decideByUser(
      target.request,
      { text: run.content, ...(run.approval ? { approval: run.approval } : {}) },
      now,
    );
    const others = waiting.filter((w) => w !== target).map((w) => w.pending);
    const unsettled = await this.settle(run, target, outcome, waiting, others);
    if (unsettled) {
      await journal.saveDecision(run, unsettled);
      return unsettled;
    }
    const exchange = resumedExchange({
      id: resumedCallId(target.pending.callId),
      name: target.pending.agentName,
      argumentsJson: JSON.stringify({ question: target.request.question }),
      argumentsSummary: { question: target.request.question },
      durationMs: previous?.finishedAt ? Math.max(0, now - previous.finishedAt.getTime()) : 0,
      outcome,
    });
    const agents = { messages: exchange.messages, records: [exchange.record] };
    this.options.logger.info(
      { runId: run.runId, committee: target.request.committee, status: outcome.status, stillWaiting: others.length },
      'committee decided by the user',
    );
    const decision: PendingAgentDecision = others.length
      ? {
          kind: 'answer',
          response: others.map((p) => p.prompt).join('\n\n'),
          waitingFor: 'approval',
          agents,
          pending: others,
        }
      : { kind: 'run_loop_with_agent_results', agents };
    await journal.saveDecision(run, decision);
    return decision;
  }

  /**
   * Records the decision with the agent pool, which holds the request (so each request is decided
   * once, by the conversation or the approvals API, and expires at its time). Returns the
   * answer when the decision cannot be the call's result: the request expired (its expiry
   * notice gives the call its `COMMITTEE_DECISION_EXPIRED` result), was decided already, or an
   * approvals-API decision chose no answer (the request keeps waiting).
   */
  private async settle(
    run: ClaimedRun,
    target: WaitingCommittee,
    outcome: ToolOutcome,
    waiting: WaitingCommittee[],
    others: PendingAgent[],
  ): Promise<PendingAgentDecision | undefined> {
    const { committee, approvalId, expiresAt } = target.request;
    const answer = (response: string, pending: PendingAgent[]): PendingAgentDecision => ({
      kind: 'answer',
      response,
      waitingFor: 'approval',
      agents: NO_AGENT_RESULTS,
      pending,
    });
    if (outcome.status === 'timeout')
      return answer(
        `The ${committee} committee's decision request expired at ${expiresAt}; nothing was decided.`,
        others,
      );
    if (outcome.status === 'invalid' && run.approval) {
      return answer(
        `Choose one of the ${committee} committee's answers with "changes": {"choice": "<role>"}, or give your own with {"answer": "<text>"}.\n\n${target.pending.prompt}`,
        waiting.map((w) => w.pending),
      );
    }
    // A request asked before the pool held them (its id is `<runId>:<callId>`) is decided here alone.
    if (!POOL_APPROVAL_ID.test(approvalId)) return undefined;
    const decision =
      outcome.status === 'cancelled'
        ? { decision: 'cancel' as const }
        : run.approval
          ? { decision: 'edit' as const, changes: run.approval.changes ?? {} }
          : { reply: run.content };
    const refused = await this.options.decisions.decide(run.tenantId, approvalId, decision);
    if (!refused) return undefined;
    this.options.logger.info(
      { runId: run.runId, committee, approvalId, code: refused.code },
      'committee decision refused: no longer waiting',
    );
    return answer(
      `The ${committee} committee's decision was already made, or its request expired; nothing changed (${refused.code}).`,
      others,
    );
  }

  private requestOf(pending: PendingAgent): WaitingCommittee[] {
    const request = committeeRequestOf(pending);
    return request ? [{ pending, request }] : [];
  }
}
