import { type ModelPort, type PendingAgent, type ToolCallRecord } from '@platform/agent-loop';
import { resumedCallId, type ChatMessage } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import { z } from 'zod';
import { resumedExchange, type AgentResults } from '../agent-tools/agent-results.js';
import type { ClaimedRun, RunRecord, RunRecords } from '../journal/run-records.js';
import { outcomeOfChild, type ChildRuns, type ParentEvents } from './child-runs.js';
import { delegationToolName } from './delegation-tools.js';
import { journaledDecision, type PendingAgentDecision, type PendingAgentStep } from '../agent-tools/pending-agents.js';

/** Which waiting children this message answers, decided before answering (journaled, for a resume). */
const Plan = z.array(z.object({ childRunId: z.string() }));
type Plan = z.infer<typeof Plan>;

interface WaitingChildrenJournal {
  load(run: ClaimedRun): Promise<unknown>;
  save(run: ClaimedRun, plan: Plan): Promise<void>;
  loadDecision(run: ClaimedRun): Promise<unknown>;
  saveDecision(run: ClaimedRun, decision: PendingAgentDecision): Promise<void>;
}

export interface WaitingChildrenOptions {
  records: RunRecords;
  children: ChildRuns;
  journal: WaitingChildrenJournal;
  logger: Logger;
}

/** The call that started a child, as the parent's history shows it once the child finished. */
function exchangeOf(child: RunRecord, task: string): { messages: ChatMessage[]; record: ToolCallRecord } {
  const name = delegationToolName(child.profile);
  return resumedExchange({
    id: resumedCallId(child.lineage?.parentCallId ?? child.runId),
    name,
    argumentsJson: JSON.stringify({ task }),
    argumentsSummary: { task: task.length > 200 ? `${task.slice(0, 200)}…` : task },
    durationMs: child.finishedAt ? child.finishedAt.getTime() - child.createdAt.getTime() : 0,
    outcome: outcomeOfChild(child.profile, name, child),
  });
}

/**
 * The waiting-children step, before the pending-agent step: when a child run (a delegation) of
 * this conversation stopped to ask the user, the user's next message here (or the approvals
 * API's decision on the child's approval) goes on to that child as the next message of its own
 * conversation; the child resumes and finishes, and its answer enters this run as the result of
 * the delegation call that waited (`<callId>:resumed`), before the parent's loop goes on. A child
 * that asks again keeps the parent waiting with its new question. Messages that concern no
 * waiting child go to the pending-agent step as before.
 */
export class WaitingChildrenStep implements PendingAgentStep {
  constructor(
    private readonly inner: PendingAgentStep,
    private readonly options: WaitingChildrenOptions,
  ) {}

  /** `events`: the parent's stream, where the answered children's events are forwarded while they resume. */
  async beforeLoop(
    run: ClaimedRun,
    model: ModelPort,
    events: ParentEvents = () => undefined,
  ): Promise<PendingAgentDecision> {
    const { journal, records } = this.options;
    const decided = await journaledDecision(run, (r) => journal.loadDecision(r));
    if (decided) return decided;
    if (run.input) return this.inner.beforeLoop(run, model);
    const journaled = Plan.safeParse(run.attempts > 1 ? await journal.load(run) : undefined);
    if (!journaled.success && !run.agentsMayWait && !run.approval) return this.inner.beforeLoop(run, model);
    const waiting = await records.waitingChildren(run.tenantId, run.conversationId);
    let plan: Plan;
    if (journaled.success) {
      plan = journaled.data;
    } else {
      plan = this.choose(run, waiting);
      if (plan.length === 0) return this.inner.beforeLoop(run, model);
      await journal.save(run, plan);
    }
    const answered = new Set(plan.map((p) => p.childRunId));
    // On a resume the answered children are no longer "waiting" (their answer run is later): find them by id.
    const targets = await Promise.all(
      plan.map(
        async (p) => waiting.find((w) => w.runId === p.childRunId) ?? (await records.get(run.tenantId, p.childRunId)),
      ),
    );
    const outcomes = await Promise.all(
      targets
        .filter((t): t is RunRecord => t !== undefined)
        .map(async (child) => ({
          task: child.content,
          after: await this.options.children.answer(run, child, this.approvalFor(run, child), events),
        })),
    );
    const stillWaiting = [
      ...outcomes.map((o) => o.after).filter((r) => r.status === 'waiting'),
      ...waiting.filter((w) => !answered.has(w.runId)),
    ];
    const finished = outcomes.filter((o) => o.after.status !== 'waiting').map((o) => exchangeOf(o.after, o.task));
    const agents = { messages: finished.flatMap((f) => f.messages), records: finished.map((f) => f.record) };
    this.options.logger.info(
      { runId: run.runId, children: outcomes.map((o) => ({ childRunId: o.after.runId, status: o.after.status })) },
      'waiting children answered',
    );
    const decision = this.decide(agents, stillWaiting);
    await journal.saveDecision(run, decision);
    return decision;
  }

  /** The child an approval decision is for; otherwise the message answers the oldest waiting child. */
  private choose(run: ClaimedRun, waiting: RunRecord[]): Plan {
    if (run.approval) {
      const owner = waiting.find((w) => this.approvalIds(w).includes(run.approval!.approvalId));
      return owner ? [{ childRunId: owner.runId }] : [];
    }
    return waiting[0] ? [{ childRunId: waiting[0].runId }] : [];
  }

  private approvalIds(child: RunRecord): string[] {
    return (child.result?.pendingAgents ?? [])
      .map((p) => p.approval?.['approvalId'])
      .filter((id): id is string => typeof id === 'string');
  }

  private approvalFor(run: ClaimedRun, child: RunRecord): ClaimedRun['approval'] {
    return run.approval && this.approvalIds(child).includes(run.approval.approvalId) ? run.approval : undefined;
  }

  private decide(agents: AgentResults, stillWaiting: RunRecord[]): PendingAgentDecision {
    if (stillWaiting.length === 0) return { kind: 'run_loop_with_agent_results', agents };
    const pending: PendingAgent[] = stillWaiting.flatMap((child) => {
      const outcome = outcomeOfChild(child.profile, delegationToolName(child.profile), child);
      return outcome.status === 'waiting'
        ? [{ callId: child.lineage?.parentCallId ?? child.runId, ...outcome.pending }]
        : [];
    });
    return {
      kind: 'answer',
      response: pending.map((p) => p.prompt).join('\n\n'),
      waitingFor: pending.some((p) => p.waitingFor === 'approval') ? 'approval' : 'input',
      agents,
      pending,
    };
  }
}
