import {
  classifyToolResult,
  withRecovery,
  type ToolCallContext,
  type ToolCallRequest,
  type ToolDescription,
  type ToolOutcome,
  type ToolPort,
} from '@platform/agent-loop';
import type { ClaimedRun } from '../journal/run-records.js';
import type { CommitteeSpec, DelegateSpec, ProfileRegistry } from '../profiles.js';
import { chainOf, outcomeOfChild, type ChildRuns, type ParentEvents } from './child-runs.js';
import { committeeToolName, CommitteeTool, type CommitteeScope } from './committee.js';

/** The tool a role appears as. */
const DELEGATION_TOOL_PREFIX = 'delegate_to_';

export function delegationToolName(role: string): string {
  return `${DELEGATION_TOOL_PREFIX}${role}`;
}

const TASK_SCHEMA = {
  type: 'object',
  properties: {
    task: {
      type: 'string',
      minLength: 1,
      description: 'The task, self-contained: the role sees only this text, not this conversation.',
    },
  },
  required: ['task'],
  additionalProperties: false,
};

export interface DelegationSettings {
  maxDepth: number;
  defaultTimeoutMs: number;
  /** The tier of runs whose caller named none (a role's access rules are checked against it). */
  defaultTier: string;
}

export interface DelegationScope {
  run: ClaimedRun;
  delegates: DelegateSpec[];
  committees?: CommitteeSpec[];
  events: ParentEvents;
  /** True while the parent's attempt is only being handed over (a child must then go on). */
  handingOver: () => boolean;
  /** Where a `user` committee's decision waits (the agent pool). */
  userDecisions?: CommitteeScope['userDecisions'];
}

/**
 * The delegation step of a turn: the profile's roles offered to the model as tools next to the
 * runner tools, each call run as a child run under the role's profile (its prompt, model and
 * tools). The chain travels with every child: a role already in it is refused (a loop), and so is
 * a delegation past the depth limit. Calls of one response run concurrently, like any tool calls.
 */
export class DelegationToolPort implements ToolPort {
  private readonly roles: Map<string, DelegateSpec>;
  private readonly committees: Map<string, CommitteeSpec>;
  private readonly committee: CommitteeTool;

  constructor(
    private readonly inner: ToolPort,
    private readonly children: ChildRuns,
    private readonly profiles: ProfileRegistry,
    private readonly settings: DelegationSettings,
    private readonly scope: DelegationScope,
  ) {
    this.roles = new Map(scope.delegates.map((d) => [delegationToolName(d.role), d]));
    this.committees = new Map((scope.committees ?? []).map((c) => [committeeToolName(c.name), c]));
    this.committee = new CommitteeTool(children, {
      parent: scope.run,
      events: scope.events,
      handingOver: scope.handingOver,
      refusal: (role) => this.refusal(role),
      defaultTimeoutMs: settings.defaultTimeoutMs,
      userDecisions: scope.userDecisions,
    });
  }

  private describe(spec: DelegateSpec): ToolDescription {
    return {
      name: delegationToolName(spec.role),
      description: `Hand a task to the ${spec.role}: ${spec.description}`,
      parameters: TASK_SCHEMA,
      kind: 'agent',
      timeoutMs: spec.timeoutMs ?? this.settings.defaultTimeoutMs,
      sideEffect: 'external',
      failureClass: 'coordination',
    };
  }

  list(): ToolDescription[] {
    const own = [
      ...[...this.roles.values()].map((spec) => this.describe(spec)),
      ...[...this.committees.values()].map((spec) => this.committee.describe(spec)),
    ];
    return [...this.inner.list().filter((t) => !this.roles.has(t.name) && !this.committees.has(t.name)), ...own];
  }

  lookup(name: string): ToolDescription | undefined {
    const role = this.roles.get(name);
    if (role) return this.describe(role);
    const committee = this.committees.get(name);
    if (committee) return this.committee.describe(committee);
    return this.inner.lookup ? this.inner.lookup(name) : this.inner.list().find((t) => t.name === name);
  }

  refuse(name: string): ReturnType<NonNullable<ToolPort['refuse']>> {
    return this.roles.has(name) || this.committees.has(name) ? undefined : this.inner.refuse?.(name);
  }

  execute(call: ToolCallRequest, context: ToolCallContext): Promise<ToolOutcome> {
    const role = this.roles.get(call.name);
    if (role) return this.delegate(role, call, context);
    const committee = this.committees.get(call.name);
    return committee ? this.committee.ask(committee, call, context) : this.inner.execute(call, context);
  }

  /** Why a delegation to this role is refused from this run (a loop, the depth limit, access); undefined when it may go ahead. */
  private refusal(role: string): ToolOutcome | undefined {
    const { run } = this.scope;
    const chain = chainOf(run);
    if (chain.includes(role)) {
      const path = [...chain, role].join(' → ');
      return {
        status: 'denied',
        content: `delegation refused: '${role}' is already in the delegation chain (${path}), so this would loop. Do this part yourself or hand it to another role.`,
        errorCode: 'DELEGATION_LOOP',
      };
    }
    if (chain.length > this.settings.maxDepth) {
      return {
        status: 'denied',
        content: `delegation refused: the chain ${chain.join(' → ')} is at the depth limit (${this.settings.maxDepth}); do this part yourself.`,
        errorCode: 'DELEGATION_DEPTH_EXCEEDED',
      };
    }
    // A tenant agent's roles were checked when it was written; the child's agent is fixed at its creation.
    const tenantAgent = run.agent !== undefined && !run.agent.id.startsWith('builtin:');
    if (
      !tenantAgent &&
      !this.profiles.resolve(role, { tenantId: run.tenantId, tier: run.tier || this.settings.defaultTier })
    ) {
      return { status: 'failed', content: `the ${role} is not available to you.`, errorCode: 'ROLE_UNAVAILABLE' };
    }
    return undefined;
  }

  private async delegate(spec: DelegateSpec, call: ToolCallRequest, context: ToolCallContext): Promise<ToolOutcome> {
    const { run } = this.scope;
    const task = call.arguments['task'];
    if (typeof task !== 'string' || !task.trim())
      return {
        status: 'invalid',
        content: `'${call.name}' needs a non-empty "task" string.`,
        errorCode: 'INVALID_ARGUMENTS',
      };
    if (task.includes('\u0000'))
      return {
        status: 'invalid',
        content: 'the task must not contain the NUL character (U+0000).',
        errorCode: 'INVALID_ARGUMENTS',
      };
    const refused = this.refusal(spec.role);
    if (refused) return refused;
    const child = await this.children.run(
      {
        parent: run,
        callId: call.id,
        role: spec.role,
        task,
        ...(spec.remoteAgent ? { remoteAgent: spec.remoteAgent } : {}),
      },
      context.signal,
      this.scope.events,
      this.scope.handingOver,
    );
    let outcome = outcomeOfChild(spec.role, call.name, child);
    if (outcome.status === 'failed' && spec.fallbackRole && !context.signal.aborted)
      outcome = (await this.reassign(spec.fallbackRole, spec.role, call, task, outcome, context)) ?? outcome;
    if (outcome.status === 'waiting') await this.children.markWaiting(run);
    return outcome;
  }

  /**
   * The recovery `reassign`: the failed role's task goes, once, to the profile's fallback role as
   * a new child run (its id derived from the call, so a resumed parent finds it again). Its
   * outcome answers the call, and the first child's failure is recorded with it. Undefined when
   * the fallback role is refused from this run (loop, depth, access): the failure stands.
   */
  private async reassign(
    fallbackRole: string,
    failedRole: string,
    call: ToolCallRequest,
    task: string,
    failed: ToolOutcome,
    context: ToolCallContext,
  ): Promise<ToolOutcome | undefined> {
    if (this.refusal(fallbackRole)) return undefined;
    const first = classifyToolResult(
      failed.status === 'waiting' ? 'success' : failed.status,
      'errorCode' in failed ? failed.errorCode : undefined,
      'coordination',
    );
    const child = await this.children.run(
      { parent: this.scope.run, callId: call.id, role: fallbackRole, task, reassignedFrom: failedRole },
      context.signal,
      this.scope.events,
      this.scope.handingOver,
    );
    const outcome = outcomeOfChild(fallbackRole, call.name, child);
    return first ? { ...outcome, failures: [withRecovery(first, 'reassign')] } : outcome;
  }
}
