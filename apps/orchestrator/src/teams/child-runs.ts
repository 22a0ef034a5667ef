import { createHash } from 'node:crypto';
import type { ToolOutcome } from '@platform/agent-loop';
import type { Logger, NatsConnection } from '@platform/service-kit';
import { remoteRunAgentId, type RunEventType } from '@platform/contracts';
import { ChildEventForwarder, lastForwardedId } from '../events/child-event-forwarder.js';
import type { RunEventPublisher } from '../events/run-event-publisher.js';
import type {
  ApprovalDecisionInput,
  ClaimedRun,
  NewRun,
  RunAgent,
  RunLineage,
  RunRecord,
  RunRecords,
} from '../journal/run-records.js';
import type { ConversationQueue } from '../ordering/conversation-queue.js';

/** How long a finished child's last events may trail its recorded outcome before the parent goes on. */
const FORWARD_GRACE_MS = 2_000;

/** What a child run is asked to do: a task for a role, on behalf of one tool call of its parent. */
export interface ChildTask {
  parent: ClaimedRun;
  callId: string;
  role: string;
  task: string;
  /** Set when the task is reassigned (a delegation's `fallbackRole`) after this role's child failed. */
  reassignedFrom?: string;
  /** The only tools the child may use (within its role's profile): a plan subtask's named tool. */
  tools?: string[];
  /** The tenant's remote A2A agent that does the role's work (the delegate's `remoteAgent`): the child runs under it. */
  remoteAgent?: string;
}

/**
 * Where the parent's events go (its own run-event publisher). A child's start and end may return a
 * promise that settles once the parent's stream holds them: the parent awaits it before it goes on
 * (and journals the delegation's outcome), so a parent killed after that point never resumes with
 * its stream missing the child's start or end.
 */
export type ParentEvents = (
  type: 'child_run_started' | 'child_run_event' | 'child_run_finished',
  data: Record<string, unknown>,
) => void | Promise<void>;

/** The parent's events through its publisher, a child's start and end awaited until the stream has them. */
export function parentEventsOf(
  publisher: Pick<RunEventPublisher, 'publish' | 'flush'>,
): (type: RunEventType, data: Record<string, unknown>) => void | Promise<void> {
  return (type, data) => {
    publisher.publish(type, data);
    return type === 'child_run_started' || type === 'child_run_finished' ? publisher.flush() : undefined;
  };
}

export interface ChildRunsDependencies {
  records: RunRecords;
  /** The conversation queue (it runs the child like any run). */
  queue: Pick<ConversationQueue, 'waitForRun' | 'kick'>;
  nc: NatsConnection;
  /** Asks a run to stop (the cancel flag, and this process or the broadcast for a running one). */
  cancelRun: (tenantId: string, runId: string) => Promise<void>;
  /**
   * The agent version a new child of this role runs under, fixed at its creation (a tenant agent's
   * active version, else the built-in profile); absent or undefined: none recorded (a built-in profile by name).
   */
  agentOfRole?: (parent: ClaimedRun, role: string) => Promise<RunAgent | undefined>;
  logger: Logger;
}

/**
 * A child's run id, derived from its parent and the call that starts it: a parent that resumes
 * after a crash and makes the same call again finds the same child (running, or finished and
 * never run again) instead of starting another.
 */
export function childRunId(tenantId: string, parentRunId: string, callId: string): string {
  return `child_${createHash('sha256').update(`${tenantId}\u0000${parentRunId}\u0000${callId}`).digest('hex').slice(0, 40)}`;
}

/** A child run has its own conversation (its own history and transcript), named after the run. */
function childConversationId(runId: string): string {
  return `delegation:${runId}`;
}

export function isChildConversation(conversationId: string): boolean {
  return conversationId.startsWith('delegation:');
}

/** The chain a run's delegations extend: its lineage's, or (a run a user started) its own profile. */
export function chainOf(run: Pick<ClaimedRun, 'profile' | 'lineage'>): string[] {
  return run.lineage?.chain ?? [run.profile];
}

/**
 * The one tool result a finished child gives its parent's call. A child that stopped to ask the
 * user makes the call wait too (the parent's turn then asks the user, and the answer goes on to the
 * child: see waiting-children.ts).
 */
export function outcomeOfChild(role: string, toolName: string, child: RunRecord): ToolOutcome {
  const answer = child.result?.response ?? '';
  switch (child.status) {
    case 'completed':
      return { status: 'success', content: answer };
    case 'cancelled':
      return { status: 'cancelled', content: `the ${role} was cancelled before it finished.`, errorCode: 'CANCELLED' };
    case 'waiting': {
      const pending = child.result?.pendingAgents ?? [];
      const approval = pending.find((p) => p.waitingFor === 'approval')?.approval;
      const prompt = answer || pending.map((p) => p.prompt).join('\n\n') || `The ${role} needs your answer to go on.`;
      return {
        status: 'waiting',
        content: prompt,
        pending: {
          agentName: toolName,
          waitingFor: approval ? 'approval' : 'input',
          prompt,
          ...(approval ? { approval } : {}),
        },
      };
    }
    default:
      return {
        status: 'failed',
        content: `the ${role} could not finish (${child.stopReason ?? 'failed'}): ${answer}`,
        errorCode: 'CHILD_RUN_FAILED',
      };
  }
}

/**
 * Starts child runs and waits for them. A child is a run of its own (same tenant, its own
 * conversation, journal and transcript) recorded with its lineage; the conversation queue runs it
 * like any run, so a crash anywhere resumes it from its journal through the recovery sweep. While
 * the parent waits (for a new child, or one answered through its conversation), the child's
 * events are forwarded to the parent's stream (events/child-event-forwarder.ts).
 */
export class ChildRuns {
  constructor(private readonly deps: ChildRunsDependencies) {}

  /**
   * Runs the task as a child run (or finds the one an earlier attempt of the parent started) and
   * returns its finished record. `signal` aborting (the delegation's deadline, or the parent
   * cancelled) cancels the child unless `keepChild()` says the parent is only being handed over.
   */
  async run(task: ChildTask, signal: AbortSignal, events: ParentEvents, keepChild: () => boolean): Promise<RunRecord> {
    const { parent } = task;
    // A reassigned task is a second child of the same call: its id must differ from the first's.
    const runId = childRunId(
      parent.tenantId,
      parent.runId,
      task.reassignedFrom ? `${task.callId}:reassigned` : task.callId,
    );
    const lineage: RunLineage = {
      parentRunId: parent.runId,
      parentCallId: task.callId,
      chain: [...chainOf(parent), task.role],
      ...(task.tools ? { tools: task.tools } : {}),
    };
    // A child found again (its parent resumed) keeps the version it was created with: create does not overwrite.
    const agent = task.remoteAgent
      ? { id: remoteRunAgentId(task.remoteAgent), version: 0 }
      : await this.deps.agentOfRole?.(parent, task.role);
    const child: NewRun = {
      runId,
      tenantId: parent.tenantId,
      conversationId: childConversationId(runId),
      profile: task.role,
      content: task.task,
      tier: parent.tier,
      stream: false,
      timeZone: parent.timeZone,
      lineage,
      ...(agent ? { agent } : {}),
      ...(parent.subject ? { subject: parent.subject } : {}),
    };
    return this.runToEnd(parent, child, signal, events, keepChild);
  }

  /**
   * Passes the user's answer (and the approval decision, when it is the child's) from the
   * parent's conversation on to a child that waits for the user, as the next message of the
   * child's own conversation, and waits for that run. Its id is derived from the parent's run and
   * the child's conversation, so a resumed parent finds it again.
   */
  async answer(
    parent: ClaimedRun,
    waiting: RunRecord,
    approval: ApprovalDecisionInput | undefined,
    events: ParentEvents,
  ): Promise<RunRecord> {
    const lineage = waiting.lineage ?? {
      parentRunId: parent.runId,
      parentCallId: '',
      chain: [...chainOf(parent), waiting.profile],
    };
    const next: NewRun = {
      runId: childRunId(parent.tenantId, parent.runId, `answer:${waiting.conversationId}`),
      tenantId: parent.tenantId,
      conversationId: waiting.conversationId,
      profile: waiting.profile,
      content: parent.content,
      tier: parent.tier,
      stream: false,
      timeZone: parent.timeZone,
      ...(approval ? { approval } : {}),
      lineage: { ...lineage, parentRunId: parent.runId },
      // The answer runs under the version the waiting child ran under.
      ...(waiting.agent ? { agent: waiting.agent } : {}),
      ...(parent.subject ? { subject: parent.subject } : {}),
    };
    return this.runToEnd(parent, next, new AbortController().signal, events, () => true);
  }

  private async runToEnd(
    parent: ClaimedRun,
    child: NewRun,
    signal: AbortSignal,
    events: ParentEvents,
    keepChild: () => boolean,
  ): Promise<RunRecord> {
    const { runId, conversationId, profile: role } = child;
    const callId = child.lineage?.parentCallId ?? '';
    const created = await this.deps.records.create(child);
    await events(
      created ? 'child_run_started' : 'child_run_event',
      created
        ? { childRunId: runId, role, callId, chain: child.lineage?.chain ?? [] }
        : { childRunId: runId, role, event: { type: 'reattached' } },
    );
    this.deps.logger.info(
      { runId: parent.runId, childRunId: runId, role, created },
      created ? 'child run started' : 'waiting for a child run started before',
    );
    // A child found again (a parent resumed after a restart) is forwarded from the first event the parent's stream lacks.
    const afterId = created ? 0 : await lastForwardedId(this.deps.nc, parent.runId, runId).catch(() => 0);
    // Forwarded events are not awaited one by one: only a child's start and end are.
    const forwardTo = (type: 'child_run_event', data: Record<string, unknown>): void => void events(type, data);
    const forward = new ChildEventForwarder(this.deps.nc, runId, role, afterId, forwardTo, this.deps.logger);
    let record: RunRecord | undefined;
    const onAbort = (): void => {
      if (keepChild()) return;
      void this.deps
        .cancelRun(parent.tenantId, runId)
        .catch((err: unknown) =>
          this.deps.logger.warn({ childRunId: runId, err: (err as Error).message }, 'could not cancel a child run'),
        );
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const { queue } = this.deps;
      const finished = queue.waitForRun(parent.tenantId, conversationId, runId, signal);
      queue.kick(parent.tenantId, conversationId);
      record = await finished;
    } finally {
      signal.removeEventListener('abort', onAbort);
      // A finished child's last events (its `execution_end`) go to the parent's stream before `child_run_finished`.
      await (record ? forward.stop(FORWARD_GRACE_MS) : forward.cancel());
    }
    await events('child_run_finished', {
      childRunId: runId,
      role,
      status: record.status,
      stopReason: record.stopReason,
    });
    return record;
  }

  /** A child of this conversation's run waits for the user: the next message there must look for it. */
  async markWaiting(run: Pick<ClaimedRun, 'tenantId' | 'conversationId'>): Promise<void> {
    await this.deps.records.markAgentsMayWait(run.tenantId, run.conversationId);
  }
}
