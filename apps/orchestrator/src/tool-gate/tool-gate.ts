import type { ToolCallRequest, ToolOutcome } from '@platform/agent-loop';
import type { ToolCallResponse } from '@platform/contracts';
import type { CatalogEntry, ToolCallAnswer, ToolCatalog, ToolClient } from '@platform/tool-sdk';
import type { CredentialGrants } from './credential-grants.js';
import type { Admission, CallHealth, ToolBreakers } from '../tool-breakers.js';
import { judge, type GateQuestion, type GateVerdict } from './gate-rules.js';

/** Where a call goes: its tenant and conversation as the runner sees them, its run, deadline and signal. */
export interface CallTarget {
  tenantId: string;
  conversationId: string;
  runId: string;
  deadlineAt: number;
  signal: AbortSignal;
}

/** What sending a plain tool's call came to: the runner's own answer, or a refusal before it was sent. */
export type RunnerCall = { answer: ToolCallAnswer } | { refused: Extract<ToolOutcome, { errorCode: string }> };

export interface ToolGateDependencies {
  catalog: ToolCatalog;
  client: ToolClient;
  /** Circuit breakers per tool, shared by every caller of this process. */
  breakers?: ToolBreakers;
  /** Signs a credential grant for calls of tools that declare `credentials`. */
  grants?: CredentialGrants;
}

/** After a runner answered "no batches here", its tool's batched calls go one by one for this long. */
const UNBATCHED_RECHECK_MS = 60_000;
const ADMITTED: Admission = { allowed: true, trial: false };

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

/**
 * The one enforcement point of every tool call, whoever asks (README, "The tool gate"): the
 * model's calls and a plan subtask's (RunnerToolPort), a client trying a tool (ToolTrials), a
 * trigger task's condition poll and a custom executor's fire (TaskToolCalls). `admit` applies the
 * rules (allowlist, executor declaration, approval and agent-tools, availability); `send` the
 * credential grant, the circuit breaker, call-id dedupe and the dispatch to a runner replica.
 */
export class ToolGate {
  /** Calls on their way to a runner, by tenant and call id: the same call id again joins the one in flight. */
  private readonly inFlight = new Map<string, Promise<RunnerCall>>();
  /** Tools whose runners had no batch subscriber, until when to send their calls alone. */
  private readonly unbatched = new Map<string, number>();

  constructor(private readonly deps: ToolGateDependencies) {}

  /** Whether the caller may call the tool, and how (send it, or hold it for the user). */
  admit(question: GateQuestion): GateVerdict {
    return judge(question, this.deps.catalog.lookup(question.tool));
  }

  /** The tools of the catalog that are online now (what a caller may be offered, before its allowlist). */
  listed(): CatalogEntry[] {
    return this.deps.catalog.list();
  }

  /** Like `admit`, after a discovery round when the catalog is still empty (right after a boot). */
  async admitFresh(question: GateQuestion): Promise<GateVerdict> {
    const verdict = this.admit(question);
    if (verdict.verdict !== 'unknown' || this.deps.catalog.list().length > 0) return verdict;
    await this.deps.catalog.refresh();
    return this.admit(question);
  }

  /** The credential grant of one call (undefined when the tool declares no credentials, or grants are off). */
  grantFor(
    entry: CatalogEntry,
    call: ToolCallRequest,
    target: Pick<CallTarget, 'tenantId' | 'runId' | 'deadlineAt'>,
  ): Promise<string | undefined> {
    return (
      this.deps.grants?.forCall({
        tenantId: target.tenantId,
        runId: target.runId,
        callId: call.id,
        tool: call.name,
        services: entry.credentials ?? [],
        deadlineAt: target.deadlineAt,
      }) ?? Promise.resolve(undefined)
    );
  }

  /**
   * Sends an admitted plain tool's call: grant, breaker, dispatch. A call whose (tenant, call id)
   * is already on its way is not sent again: it gets the same answer (runners dedupe on the call
   * id too, for a retry that comes after the first answered).
   */
  send(entry: CatalogEntry, call: ToolCallRequest, target: CallTarget): Promise<RunnerCall> {
    return this.deduped(target.tenantId, call.id, async () =>
      this.dispatch(entry, call, target, await this.grantFor(entry, call, target)),
    );
  }

  /**
   * Sends admitted calls of one tool together (custom executors' fires): one batch request to the
   * runner where it serves batches, each call with its own tenant, grant, deadline and answer.
   * A runner that serves no batches, and calls a runner answered `busy` in a batch, get their
   * calls one by one (with the client's busy retries, so another replica may take them).
   */
  async sendBatch(
    entry: CatalogEntry,
    calls: ReadonlyArray<{ call: ToolCallRequest; target: CallTarget }>,
  ): Promise<RunnerCall[]> {
    if (calls.length === 1 || (this.unbatched.get(entry.name) ?? 0) > Date.now())
      return Promise.all(calls.map(({ call, target }) => this.send(entry, call, target)));
    const results = new Array<Promise<RunnerCall>>(calls.length);
    const fresh: Array<{
      index: number;
      call: ToolCallRequest;
      target: CallTarget;
      admission: Extract<Admission, { allowed: true }>;
      resolve: (sent: RunnerCall) => void;
    }> = [];
    for (const [index, { call, target }] of calls.entries()) {
      const joined = this.inFlight.get(keyOf(target.tenantId, call.id));
      if (joined) {
        results[index] = joined;
        continue;
      }
      const admission = this.deps.breakers?.admit(call.name) ?? ADMITTED;
      if (!admission.allowed) {
        results[index] = Promise.resolve(breakerRefusal(call.name, admission.retryInMs));
        continue;
      }
      let resolve!: (sent: RunnerCall) => void;
      results[index] = this.track(target.tenantId, call.id, new Promise<RunnerCall>((r) => (resolve = r)));
      fresh.push({ index, call, target, admission, resolve });
    }
    if (fresh.length > 0) await this.dispatchBatch(entry, fresh);
    return Promise.all(results);
  }

  private async dispatchBatch(
    entry: CatalogEntry,
    fresh: ReadonlyArray<{
      call: ToolCallRequest;
      target: CallTarget;
      admission: Extract<Admission, { allowed: true }>;
      resolve: (sent: RunnerCall) => void;
    }>,
  ): Promise<void> {
    const grants = await Promise.all(fresh.map(({ call, target }) => this.grantFor(entry, call, target)));
    const answered = await this.deps.client.callBatch({
      toolName: entry.name,
      calls: fresh.map(({ call, target }, i) => ({
        callId: call.id,
        tenantId: target.tenantId,
        conversationId: target.conversationId,
        deadlineAt: target.deadlineAt,
        arguments: call.arguments,
        ...(grants[i] ? { credentialGrant: grants[i] } : {}),
      })),
      signal: fresh[0]!.target.signal,
    });
    if (answered.status === 'unsupported') this.unbatched.set(entry.name, Date.now() + UNBATCHED_RECHECK_MS);
    await Promise.all(
      fresh.map(async ({ call, target, admission, resolve }, i) => {
        const answer = answered.status === 'answered' ? answered.answers[i]! : undefined;
        // Unsupported, or past the runner's free slots: nothing ran; sent alone it may reach another replica.
        if (!answer || answer.status === 'busy') {
          resolve(await this.dispatch(entry, call, target, grants[i], admission));
          return;
        }
        this.deps.breakers?.record(call.name, healthOf(answer, target.signal), admission);
        resolve({ answer });
      }),
    );
  }

  /** Sends one call to the tool's runner through its circuit breaker. */
  private async dispatch(
    entry: CatalogEntry,
    call: ToolCallRequest,
    target: CallTarget,
    credentialGrant: string | undefined,
    admitted?: Extract<Admission, { allowed: true }>,
  ): Promise<RunnerCall> {
    const admission = admitted ?? this.deps.breakers?.admit(call.name) ?? ADMITTED;
    if (!admission.allowed) return breakerRefusal(call.name, admission.retryInMs);
    const response = await this.deps.client.call({
      toolName: call.name,
      arguments: call.arguments,
      callId: call.id,
      tenantId: target.tenantId,
      conversationId: target.conversationId,
      runId: target.runId,
      deadlineAt: target.deadlineAt,
      signal: target.signal,
      // Lets the client decide whether a lost answer may be retried (see docs/tool-protocol.md).
      sideEffect: entry.sideEffect,
      dedupe: entry.dedupe,
      ...(credentialGrant ? { credentialGrant } : {}),
    });
    this.deps.breakers?.record(call.name, healthOf(response, target.signal), admission);
    return { answer: response };
  }

  private deduped(tenantId: string, callId: string, send: () => Promise<RunnerCall>): Promise<RunnerCall> {
    return this.inFlight.get(keyOf(tenantId, callId)) ?? this.track(tenantId, callId, send());
  }

  private track(tenantId: string, callId: string, sending: Promise<RunnerCall>): Promise<RunnerCall> {
    const key = keyOf(tenantId, callId);
    this.inFlight.set(key, sending);
    void sending.finally(() => this.inFlight.delete(key)).catch(() => undefined);
    return sending;
  }
}

/** Tenant ids cannot hold a NUL (TenantId), so the key cannot be forged by another tenant's ids. */
function keyOf(tenantId: string, callId: string): string {
  return `${tenantId}\u0000${callId}`;
}

function breakerRefusal(tool: string, retryInMs: number): RunnerCall {
  const seconds = Math.max(1, Math.ceil(retryInMs / 1000));
  return {
    refused: {
      status: 'failed',
      content: `'${tool}' is temporarily unavailable: it kept failing; try again in about ${seconds} s, or answer without it.`,
      errorCode: 'TOOL_CIRCUIT_OPEN',
    },
  };
}
