import type { ToolCallContext, ToolCallRequest, ToolDescription, ToolOutcome, ToolPort } from '@platform/agent-loop';
import type { ToolCallResponse } from '@platform/contracts';
import { recordToolCall, withToolExecutionSpan } from '@platform/telemetry';
import type { CatalogEntry, ToolCallAnswer, ToolCatalog, ToolClient } from '@platform/tool-sdk';
import type { PoolAgents } from './agents/pool-agents.js';
import type { RunSource } from './journal/run-records.js';
import type { CredentialGrants } from './pipeline/credential-grants.js';
import type { Admission, CallHealth, ToolBreakers } from './tool-breakers.js';

export interface RunnerToolPortScope {
  tenantId: string;
  conversationId: string;
  /** The agent profile's tool allowlist; tools it rejects are neither offered nor run. */
  allowsTool?: (name: string) => boolean;
  /** Agent-tools, and tools that require approval, run through the agent pool, which keeps them while they wait for the user. */
  agents?: PoolAgents;
  /** Circuit breakers per tool: a tool that keeps failing is refused at once for a while. */
  breakers?: ToolBreakers;
  /** Signs a credential grant for calls of tools that declare `credentials`. */
  grants?: CredentialGrants;
  /** The trigger task that sent the run's message; agents it starts record it (absent: a user). */
  source?: RunSource;
}

/** A plain tool whose every call the user must approve first (`platform.requires_approval`). */
function isGated(entry: CatalogEntry): boolean {
  return entry.kind === 'tool' && entry.requiresApproval;
}

/** As the loop sees a tool: one that may wait for the user (an agent-tool, or a gated tool) is of kind `agent`. */
function describe(entry: CatalogEntry): ToolDescription {
  const kind = isGated(entry) ? 'agent' : entry.kind;
  return { name: entry.name, description: entry.description, parameters: entry.inputSchema, kind, timeoutMs: entry.timeoutMs, sideEffect: entry.sideEffect };
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

/**
 * What an answer says of the tool's health: an answer of any kind is healthy; no answer in time,
 * all replicas busy or a broken transport is not; a call its caller gave up on, or that found no
 * runner at all (answered at once, nothing to protect), says nothing.
 */
function healthOf(response: ToolCallResponse, signal: AbortSignal): CallHealth {
  if (signal.aborted) return 'neutral';
  if (response.status === 'timeout' || response.status === 'busy') return 'unhealthy';
  if (response.status !== 'failed') return 'healthy';
  if (response.error.code === 'TRANSPORT_FAILED' || response.error.code === 'RUNNER_BUSY') return 'unhealthy';
  return response.error.code === 'RUNNER_UNAVAILABLE' ? 'neutral' : 'healthy';
}

const ADMITTED: Admission = { allowed: true, trial: false };

/** What sending a plain tool's call came to: the runner's own answer, or a refusal before it was sent. */
export type RunnerCall = { answer: ToolCallAnswer } | { refused: ToolOutcome };

/** The loop's outcome of a {@link RunnerCall}. */
export function outcomeOf(sent: RunnerCall): ToolOutcome {
  return 'refused' in sent ? sent.refused : toOutcome(sent.answer);
}

/** Runs a tool call in its execution span and counts it in the tool metrics. */
function traced<T>(call: ToolCallRequest, work: () => Promise<T>, outcome: (result: T) => ToolOutcome): Promise<T> {
  return withToolExecutionSpan({ toolName: call.name, toolCallId: call.id }, async (span) => {
    const started = performance.now();
    const result = await work();
    const { status, ...rest } = outcome(result);
    const errorCode = status !== 'success' && status !== 'waiting' && 'errorCode' in rest ? rest.errorCode : undefined;
    span.setAttribute('platform.tool.status', status);
    if (errorCode) span.setAttribute('error.type', errorCode);
    recordToolCall({ toolName: call.name, status, errorCode }, (performance.now() - started) / 1000);
    return result;
  });
}

/** The loop's tool port over the live catalog and NATS tool runners. */
export class RunnerToolPort implements ToolPort {
  constructor(
    private readonly catalog: ToolCatalog,
    private readonly client: ToolClient,
    private readonly scope: RunnerToolPortScope,
  ) {}

  private allowed(name: string): boolean {
    return this.scope.allowsTool?.(name) ?? true;
  }

  /** What the model is offered: allowed tools, minus agents their runner keeps off the model's list. */
  list(): ToolDescription[] {
    return this.catalog
      .list()
      .filter((t) => this.allowed(t.name) && t.exposeToModel !== false)
      .map(describe);
  }

  lookup(name: string): ToolDescription | undefined {
    const found = this.catalog.lookup(name);
    return found.state === 'unknown' || !this.allowed(name) ? undefined : describe(found.entry);
  }

  execute(call: ToolCallRequest, context: ToolCallContext): Promise<ToolOutcome> {
    return traced(call, () => this.run(call, context), (outcome) => outcome);
  }

  /**
   * One call of a plain tool outside any loop (a client trying it, CallTool): the same grant,
   * breaker, deadline and dispatch as a call the model makes, with the runner's answer as it came
   * (argument issues included). The caller checked the tool is a plain one that needs no approval.
   */
  callPlainTool(entry: CatalogEntry, call: ToolCallRequest, context: ToolCallContext): Promise<RunnerCall> {
    return traced(call, async () => this.send(entry, call, context, await this.grantFor(entry, call, context)), outcomeOf);
  }

  private async run(call: ToolCallRequest, context: ToolCallContext): Promise<ToolOutcome> {
    if (!this.allowed(call.name)) return { status: 'denied', content: `this agent may not use '${call.name}'.`, errorCode: 'TOOL_NOT_ALLOWED' };
    const found = this.catalog.lookup(call.name);
    if (found.state !== 'online') {
      return { status: 'failed', content: `no runner serves '${call.name}' right now; try again later or answer without it.`, errorCode: 'RUNNER_UNAVAILABLE' };
    }
    if (isGated(found.entry)) {
      // Never run without the user's approval: the pool holds the call until the user decides.
      if (!this.scope.agents) return { status: 'denied', content: `'${call.name}' needs the user's approval first, and nobody can ask for it here; it was not run.`, errorCode: 'APPROVAL_UNAVAILABLE' };
      // The gated call runs only after approval, through ResolveApproval, which brings its own grant.
      return this.scope.agents.start(this.scope, call, context, true);
    }
    const credentialGrant = await this.grantFor(found.entry, call, context);
    if (found.entry.kind === 'agent' && this.scope.agents) return this.scope.agents.start(this.scope, call, context, false, credentialGrant);
    return outcomeOf(await this.send(found.entry, call, context, credentialGrant));
  }

  private grantFor(entry: CatalogEntry, call: ToolCallRequest, context: ToolCallContext): Promise<string | undefined> {
    return (
      this.scope.grants?.forCall({
        tenantId: this.scope.tenantId,
        runId: context.runId,
        callId: call.id,
        tool: call.name,
        services: entry.credentials ?? [],
        deadlineAt: context.deadlineAt,
      }) ?? Promise.resolve(undefined)
    );
  }

  /** Sends the call to the tool's runner through its circuit breaker. */
  private async send(entry: CatalogEntry, call: ToolCallRequest, context: ToolCallContext, credentialGrant: string | undefined): Promise<RunnerCall> {
    const admission = this.scope.breakers?.admit(call.name) ?? ADMITTED;
    if (!admission.allowed) {
      const seconds = Math.max(1, Math.ceil(admission.retryInMs / 1000));
      return { refused: { status: 'failed', content: `'${call.name}' is temporarily unavailable: it kept failing; try again in about ${seconds} s, or answer without it.`, errorCode: 'TOOL_CIRCUIT_OPEN' } };
    }
    const response = await this.client.call({
      toolName: call.name,
      arguments: call.arguments,
      callId: call.id,
      tenantId: this.scope.tenantId,
      conversationId: this.scope.conversationId,
      runId: context.runId,
      deadlineAt: context.deadlineAt,
      signal: context.signal,
      // Lets the client decide whether a lost answer may be retried (see docs/tool-protocol.md).
      sideEffect: entry.sideEffect,
      dedupe: entry.dedupe,
      ...(credentialGrant ? { credentialGrant } : {}),
    });
    this.scope.breakers?.record(call.name, healthOf(response, context.signal), admission);
    return { answer: response };
  }
}
