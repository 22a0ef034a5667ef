import type { ToolCallContext, ToolCallRequest, ToolDescription, ToolOutcome, ToolPort } from '@platform/agent-loop';
import type { CatalogEntry, ToolCallAnswer } from '@platform/tool-sdk';
import type { PoolAgents } from './agent-tools/pool-agents.js';
import type { RunSource } from './journal/run-records.js';
import { GateRefusalCode, isGated, type GateQuestion, type GateRefusal } from './tool-gate/gate-rules.js';
import type { CallTarget, RunnerCall, ToolGate } from './tool-gate/tool-gate.js';
import { traced } from './tool-gate/tool-span.js';

export type { RunnerCall } from './tool-gate/tool-gate.js';

export interface RunnerToolPortScope {
  tenantId: string;
  conversationId: string;
  /** The agent profile's tool allowlist; tools it rejects are neither offered nor run. */
  allowsTool?: (name: string) => boolean;
  /**
   * Set for a plan subtask's child run held to the tools its subtask names: refusals then name the
   * subtask's scope rather than the profile (the gate's `subtask` caller).
   */
  subtaskScope?: readonly string[];
  /** Agent-tools, and tools that require approval, run through the agent pool, which keeps them while they wait for the user. */
  agents?: PoolAgents;
  /** The trigger task that sent the run's message; agents it starts record it (absent: a user). */
  source?: RunSource;
}

/** As the loop sees a tool: one that may wait for the user (an agent-tool, or a gated tool) is of kind `agent`. */
function describe(entry: CatalogEntry): ToolDescription {
  const kind = isGated(entry) ? 'agent' : entry.kind;
  return {
    name: entry.name,
    description: entry.description,
    parameters: entry.inputSchema,
    kind,
    timeoutMs: entry.timeoutMs,
    sideEffect: entry.sideEffect,
  };
}

/** Maps a runner's answer (tool protocol v1) onto the loop's outcome statuses. */
export function toOutcome(response: ToolCallAnswer): ToolOutcome {
  const diagnostics = response.diagnostics?.length ? { diagnostics: response.diagnostics } : {};
  if (response.status === 'success') {
    const content = typeof response.output === 'string' ? response.output : JSON.stringify(response.output ?? null);
    return { status: 'success', content, ...(response.truncated ? { truncated: true } : {}), ...diagnostics };
  }
  const issues = response.error.issues?.map((i) => `${i.path}: ${i.message}`).join('; ');
  const content = issues ? `${response.error.message} (${issues})` : response.error.message;
  // One code for "did not finish in time", whoever noticed first (the loop's timer says TIMEOUT;
  // the runner or the transport say DEADLINE_EXCEEDED): clients see the same call end the same way.
  const errorCode = response.status === 'timeout' ? 'TIMEOUT' : response.error.code;
  return { status: response.status === 'busy' ? 'failed' : response.status, content, errorCode, ...diagnostics };
}

/** The loop's outcome of a {@link RunnerCall}. */
export function outcomeOf(sent: RunnerCall): ToolOutcome {
  return 'refused' in sent ? sent.refused : toOutcome(sent.answer);
}

/** The loop's outcome of a gate refusal: `denied` for the rules, `failed` for a runner that is not there. */
function refusalOutcome(refusal: GateRefusal): Extract<ToolOutcome, { errorCode: string }> {
  if (refusal.code === GateRefusalCode.runnerUnavailable)
    return { status: 'failed', content: `${refusal.message} or answer without it.`, errorCode: refusal.code };
  return { status: 'denied', content: `${refusal.message}.`, errorCode: refusal.code };
}

/**
 * The loop's tool port over the live catalog and NATS tool runners. Every call, the model's and a
 * plan subtask's, passes the tool gate (tool-gate/): the allowlist, what needs the user, the
 * breaker, the credential grant and the dispatch all happen there, as for every other caller.
 */
export class RunnerToolPort implements ToolPort {
  constructor(
    private readonly gate: ToolGate,
    private readonly scope: RunnerToolPortScope,
  ) {}

  private question(tool: string): GateQuestion {
    const subtask = this.scope.subtaskScope;
    return {
      caller: subtask ? 'subtask' : 'model',
      tool,
      allowsTool: this.scope.allowsTool ?? (() => true),
      allowlist: subtask
        ? `this subtask (held to ${subtask.map((t) => `'${t}'`).join(', ') || 'no tools'})`
        : 'the agent profile',
    };
  }

  /** What the model is offered: allowed tools, minus agents their runner keeps off the model's list. */
  list(): ToolDescription[] {
    return this.gate
      .listed()
      .filter((t) => (this.scope.allowsTool?.(t.name) ?? true) && t.exposeToModel !== false)
      .map(describe);
  }

  lookup(name: string): ToolDescription | undefined {
    const verdict = this.gate.admit(this.question(name));
    if (verdict.verdict === 'unknown') return undefined;
    if (verdict.verdict === 'refused' && verdict.refusal.code === GateRefusalCode.notAllowed) return undefined;
    return describe(verdict.entry);
  }

  /** A tool that exists but that this agent may not use is `denied` `TOOL_NOT_ALLOWED`, not unknown (docs/api.md). */
  refuse(name: string): { status: 'denied'; errorCode: string; content: string } | undefined {
    const verdict = this.gate.admit(this.question(name));
    if (verdict.verdict !== 'refused' || verdict.refusal.code !== GateRefusalCode.notAllowed) return undefined;
    return { status: 'denied', errorCode: verdict.refusal.code, content: `${verdict.refusal.message}.` };
  }

  execute(call: ToolCallRequest, context: ToolCallContext): Promise<ToolOutcome> {
    return traced(
      call,
      () => this.run(call, context),
      (outcome) => outcome,
    );
  }

  private target(context: ToolCallContext): CallTarget {
    return {
      tenantId: this.scope.tenantId,
      conversationId: this.scope.conversationId,
      runId: context.runId,
      deadlineAt: context.deadlineAt,
      signal: context.signal,
    };
  }

  private async run(call: ToolCallRequest, context: ToolCallContext): Promise<ToolOutcome> {
    const verdict = this.gate.admit(this.question(call.name));
    switch (verdict.verdict) {
      case 'unknown':
        return {
          status: 'failed',
          content: `no runner serves '${call.name}' right now; try again later or answer without it.`,
          errorCode: 'RUNNER_UNAVAILABLE',
        };
      case 'refused':
        return refusalOutcome(verdict.refusal);
      case 'wait_for_user': {
        if (verdict.approval) {
          // Never run without the user's approval: the pool holds the call until the user decides.
          if (!this.scope.agents)
            return {
              status: 'denied',
              content: `'${call.name}' needs the user's approval first, and nobody can ask for it here; it was not run.`,
              errorCode: 'APPROVAL_UNAVAILABLE',
            };
          // The gated call runs only after approval, through ResolveApproval, which brings its own grant.
          return this.scope.agents.start(this.scope, call, context, true);
        }
        const credentialGrant = await this.gate.grantFor(verdict.entry, call, this.target(context));
        if (this.scope.agents) return this.scope.agents.start(this.scope, call, context, false, credentialGrant);
        return outcomeOf(await this.gate.send(verdict.entry, call, this.target(context)));
      }
      case 'send':
        return outcomeOf(await this.gate.send(verdict.entry, call, this.target(context)));
    }
  }
}
