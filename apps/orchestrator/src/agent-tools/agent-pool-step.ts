import type { ModelPort, PendingAgent } from '@platform/agent-loop';
import type { agentPoolV1 } from '@platform/proto';
import { isPlatformError, type Logger } from '@platform/service-kit';
import type { ToolCatalog } from '@platform/tool-sdk';
import { z } from 'zod';
import { agentResultsOf, NO_AGENT_RESULTS } from './agent-results.js';
import { approvalOf, isWaiting } from './entry-outcome.js';
import { refusalText, type ApprovalDeciders } from './approval-deciders.js';
import type { AgentPoolClient } from './pool-agents.js';
import type { ReplyInterpreter } from './reply-interpreter.js';
import type { ClaimedRun } from '../journal/run-records.js';
import type { CredentialGrants } from '../tool-gate/credential-grants.js';
import { journaledDecision, type PendingAgentDecision, type PendingAgentStep } from './pending-agents.js';

const TRANSIENT = new Set(['unavailable', 'deadline_exceeded', 'internal', 'resource_exhausted']);

/** One thing to do with a waiting agent, decided before doing it (and journaled, for a resume). */
// `agentName` and `callId` (the model's call) let the step give the agent a credential grant; plans
// journaled before they existed simply go without one.
const Target = { entryId: z.string(), agentName: z.string().optional(), callId: z.string().optional() };
const Action = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('resolve'),
    ...Target,
    approvalId: z.string(),
    decision: z.enum(['approve', 'edit', 'cancel']),
    changes: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({ kind: z.literal('continue'), ...Target, fields: z.record(z.string(), z.unknown()) }),
]);
type Action = z.infer<typeof Action>;
const Plan = z.array(Action);

/**
 * Journal of the step: its plan before acting (so a resumed run finishes it instead of deciding
 * again) and its decision after (so a resumed run reports the same results and durations).
 */
interface PlanJournal {
  load(run: ClaimedRun): Promise<unknown>;
  save(run: ClaimedRun, plan: Action[]): Promise<void>;
  loadDecision(run: ClaimedRun): Promise<unknown>;
  saveDecision(run: ClaimedRun, decision: PendingAgentDecision): Promise<void>;
}

/** What the run records know of the agent-tools a conversation's runs left waiting. */
interface WaitingRecords {
  /** When a run was accepted and the call ids of the agents it left waiting, in the order the user saw them. */
  order: (tenantId: string, runId: string) => Promise<{ createdAt: number; callIds: string[] } | undefined>;
  /** Forgets that agents may wait in a conversation, once the pool says none do. */
  noneLeft: (tenantId: string, conversationId: string) => Promise<void>;
}

export interface AgentPoolStepOptions {
  pool: AgentPoolClient;
  /** What the run records know of the agent-tools a conversation's runs left waiting. */
  waiting: WaitingRecords;
  catalog: ToolCatalog;
  interpreter: ReplyInterpreter;
  journal: PlanJournal;
  /** Credential grants for agents that declare credentials (their steps run now, so they need one now). */
  grants?: CredentialGrants;
  /** Who may decide an approval with a message; absent: whoever sends it (tests of the pool alone). */
  deciders?: Pick<ApprovalDeciders, 'refusal'>;
  logger: Logger;
}

function properties(schema: Record<string, unknown> | undefined, names: readonly string[]): Record<string, unknown> {
  const all = (schema?.['properties'] ?? {}) as Record<string, unknown>;
  const wanted = names.length ? names : Object.keys(all);
  return Object.fromEntries(wanted.filter((n) => n in all).map((n) => [n, all[n]]));
}

/**
 * The pending-agent step over the agent pool: a message for a conversation with waiting
 * agent-tools goes to them first. An approval decision (from the approvals API, or read from the
 * reply) resolves the approvals in the order confirmed; a reply to a prompt for input continues
 * the oldest agent waiting for input. Agents that finish enter the loop's context as tool
 * results; an agent that still waits answers with its prompt and the loop does not run. A
 * message about something else leaves the agents waiting and runs the loop.
 */
export class AgentPoolStep implements PendingAgentStep {
  constructor(private readonly options: AgentPoolStepOptions) {}

  async beforeLoop(run: ClaimedRun, model: ModelPort): Promise<PendingAgentDecision> {
    // Only a resumed run can have journaled a decision or a plan in an earlier attempt.
    const decided = await journaledDecision(run, (r) => this.options.journal.loadDecision(r));
    if (decided) return decided;
    // The loop started in an earlier attempt without agents answering: nothing to decide again.
    if (run.input) return { kind: 'run_loop' };
    const journaled = Plan.safeParse(run.attempts > 1 ? await this.options.journal.load(run) : undefined);
    let plan: Action[];
    if (journaled.success) {
      plan = journaled.data;
    } else {
      // Agents only start waiting when a run of the conversation ends waiting; otherwise there is nothing to ask.
      if (!run.agentsMayWait && !run.approval) return { kind: 'run_loop' };
      const { entries } = await this.options.pool.listPending({
        tenantId: run.tenantId,
        conversationId: run.conversationId,
      });
      if (entries.length === 0) await this.options.waiting.noneLeft(run.tenantId, run.conversationId);
      const planned = await this.plan(run, entries, model);
      if (planned.kind === 'answer') return planned;
      plan = planned.plan;
      if (plan.length === 0) return { kind: 'run_loop' };
      await this.options.journal.save(run, plan);
    }
    const outcomes: Array<{ entry: agentPoolV1.AgentEntry; durationMs: number }> = [];
    for (const action of plan) {
      const started = performance.now();
      const entry = await this.perform(run, action);
      outcomes.push({ entry, durationMs: performance.now() - started });
    }
    this.options.logger.info(
      { runId: run.runId, agents: outcomes.map(({ entry: e }) => ({ agent: e.agentName, status: e.status })) },
      'waiting agents answered',
    );
    const decision = this.decide(outcomes);
    await this.options.journal.saveDecision(run, decision);
    return decision;
  }

  /** Finished agents become tool exchanges; any still waiting make the answer their prompts. */
  private decide(outcomes: ReadonlyArray<{ entry: agentPoolV1.AgentEntry; durationMs: number }>): PendingAgentDecision {
    const agents = agentResultsOf(outcomes.filter(({ entry }) => !isWaiting(entry)));
    const stillWaiting = outcomes.map(({ entry }) => entry).filter(isWaiting);
    if (stillWaiting.length === 0) return { kind: 'run_loop_with_agent_results', agents };
    return {
      kind: 'answer',
      response: stillWaiting.map((e) => e.prompt).join('\n\n'),
      waitingFor: stillWaiting.some((e) => e.status === 'waiting_for_approval') ? 'approval' : 'input',
      agents,
      pending: stillWaiting.map(pendingOf),
    };
  }

  /** Why the message's sender may not decide this approval (undefined: they may). */
  private async refusalFor(run: ClaimedRun, entry: agentPoolV1.AgentEntry) {
    return this.options.deciders?.refusal(run, entry);
  }

  private async plan(
    run: ClaimedRun,
    entries: agentPoolV1.AgentEntry[],
    model: ModelPort,
  ): Promise<{ kind: 'plan'; plan: Action[] } | Extract<PendingAgentDecision, { kind: 'answer' }>> {
    if (run.approval) {
      const target = entries.find(
        (e) => e.status === 'waiting_for_approval' && e.approval?.approvalId === run.approval?.approvalId,
      );
      if (!target) {
        const response = 'That approval request is no longer waiting (it was already answered, expired or cancelled).';
        return { kind: 'answer', response, waitingFor: 'approval', agents: NO_AGENT_RESULTS, pending: [] };
      }
      const refusal = await this.refusalFor(run, target);
      if (refusal) return refused([target], [refusalText(target.approval!.actionSummary, refusal)]);
      return {
        kind: 'plan',
        plan: [
          {
            kind: 'resolve',
            entryId: target.entryId,
            agentName: target.agentName,
            callId: target.callId,
            approvalId: run.approval.approvalId,
            decision: run.approval.decision,
            ...(run.approval.changes ? { changes: run.approval.changes } : {}),
          },
        ],
      };
    }
    const approvals = await this.inShownOrder(
      run.tenantId,
      entries.filter((e) => e.status === 'waiting_for_approval' && e.approval),
    );
    if (approvals.length) {
      const choices = await this.options.interpreter.approvals(
        model,
        run.content,
        approvals.map((e) => ({
          ...(approvalOf(e) as {
            approvalId: string;
            agentName: string;
            actionSummary: string;
            details: Record<string, unknown>;
            allowModification: boolean;
          }),
        })),
      );
      const byApproval = new Map(approvals.map((e) => [e.approval!.approvalId, e]));
      // A reply decides only what its sender may decide (docs/access.md#approvals); the rest keeps waiting.
      const plan: Action[] = [];
      const refusals: string[] = [];
      const kept: agentPoolV1.AgentEntry[] = [];
      for (const c of choices) {
        const entry = byApproval.get(c.approvalId)!;
        const refusal = await this.refusalFor(run, entry);
        if (refusal) {
          refusals.push(refusalText(entry.approval!.actionSummary, refusal));
          kept.push(entry);
          continue;
        }
        plan.push({
          kind: 'resolve',
          entryId: entry.entryId,
          agentName: entry.agentName,
          callId: entry.callId,
          approvalId: c.approvalId,
          decision: c.decision,
          ...(c.changes ? { changes: c.changes } : {}),
        });
      }
      if (plan.length === 0 && refusals.length) return refused(kept, refusals);
      return { kind: 'plan', plan };
    }
    const waitingForInput = entries.find((e) => e.status === 'waiting_for_input');
    if (!waitingForInput) return { kind: 'plan', plan: [] };
    const found = this.options.catalog.lookup(waitingForInput.agentName);
    const schema = found.state === 'unknown' ? undefined : found.entry.inputSchema;
    const fields = await this.options.interpreter.fields(model, run.content, {
      agentName: waitingForInput.agentName,
      prompt: waitingForInput.prompt,
      properties: properties(
        schema,
        waitingForInput.missing.map((m) => m.name),
      ),
    });
    // A reply that gives none of the fields is about something else: the agent keeps waiting.
    return {
      kind: 'plan',
      plan: Object.keys(fields).length
        ? [
            {
              kind: 'continue',
              entryId: waitingForInput.entryId,
              agentName: waitingForInput.agentName,
              callId: waitingForInput.callId,
              fields,
            },
          ]
        : [],
    };
  }

  /**
   * Approvals numbered as the user saw them: by the run that asked, then in the order of its
   * calls (several agents of one model response are started concurrently, so the pool's own
   * order within a run is arbitrary).
   */
  private async inShownOrder(tenantId: string, entries: agentPoolV1.AgentEntry[]): Promise<agentPoolV1.AgentEntry[]> {
    const runIds = [...new Set(entries.map((e) => e.runId))];
    const orders = new Map(
      await Promise.all(runIds.map(async (id) => [id, await this.options.waiting.order(tenantId, id)] as const)),
    );
    const key = (e: agentPoolV1.AgentEntry): [number, number] => {
      const order = orders.get(e.runId);
      const index = order?.callIds.indexOf(e.callId) ?? -1;
      return [order?.createdAt ?? e.createdAt?.getTime() ?? 0, index < 0 ? Number.MAX_SAFE_INTEGER : index];
    };
    return [...entries].sort((a, b) => {
      const [ka, kb] = [key(a), key(b)];
      return ka[0] - kb[0] || ka[1] - kb[1];
    });
  }

  /** A fresh grant for the agent's step, when it declares credentials. */
  private async grantFor(run: ClaimedRun, action: Action): Promise<string | undefined> {
    if (!this.options.grants || !action.agentName || !action.callId) return undefined;
    const found = this.options.catalog.lookup(action.agentName);
    if (found.state === 'unknown') return undefined;
    return this.options.grants.forCall({
      tenantId: run.tenantId,
      runId: run.runId,
      callId: action.callId,
      tool: action.agentName,
      services: found.entry.credentials ?? [],
      deadlineAt: Date.now() + found.entry.timeoutMs,
    });
  }

  /** Performs one action; an action a crashed attempt already performed is read back instead. */
  private async perform(run: ClaimedRun, action: Action): Promise<agentPoolV1.AgentEntry> {
    const { pool } = this.options;
    try {
      const credentialGrant = await this.grantFor(run, action);
      const grant = credentialGrant ? { credentialGrant } : {};
      const response =
        action.kind === 'resolve'
          ? await pool.resolveApproval({
              tenantId: run.tenantId,
              approvalId: action.approvalId,
              decision: action.decision,
              changesJson: action.decision === 'edit' ? JSON.stringify(action.changes ?? {}) : '',
              reply: run.content,
              // Who decided: the approval keeps the message's end user (docs/access.md#approvals).
              ...(run.subject ? { decidedBy: run.subject } : {}),
              ...grant,
            })
          : await pool.continueAgent({
              tenantId: run.tenantId,
              entryId: action.entryId,
              fieldsJson: JSON.stringify(action.fields),
              message: run.content,
              ...grant,
            });
      if (response.entry) return response.entry;
    } catch (err) {
      // Unreachable pool or agent: the run is retried later. Anything else (the entry moved on, or
      // the pool refused the action) will not change on a retry: the entry's state is the outcome.
      if (!isPlatformError(err) || TRANSIENT.has(err.kind)) throw err;
      this.options.logger.warn(
        { runId: run.runId, entryId: action.entryId, code: err.code },
        'the agent pool refused an action; using the entry as it is',
      );
    }
    const { entry } = await pool.getAgent({ tenantId: run.tenantId, entryId: action.entryId });
    if (!entry) throw new Error(`agent entry ${action.entryId} vanished`);
    return entry;
  }
}

/** A waiting entry as the run's result lists it. */
function pendingOf(e: agentPoolV1.AgentEntry): PendingAgent {
  return {
    callId: e.callId,
    agentName: e.agentName,
    waitingFor: e.status === 'waiting_for_approval' ? 'approval' : 'input',
    prompt: e.prompt,
    ...(approvalOf(e) ? { approval: approvalOf(e) } : {}),
  };
}

/** The answer to a message that would decide approvals its sender may not: they keep waiting. */
function refused(
  entries: agentPoolV1.AgentEntry[],
  reasons: string[],
): Extract<PendingAgentDecision, { kind: 'answer' }> {
  return {
    kind: 'answer',
    response: reasons.join('\n\n'),
    waitingFor: 'approval',
    agents: NO_AGENT_RESULTS,
    pending: entries.map(pendingOf),
  };
}
