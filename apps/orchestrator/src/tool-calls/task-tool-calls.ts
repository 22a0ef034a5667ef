import { TenantId, ToolName } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { errors, isPlatformError, type Logger } from '@platform/service-kit';
import type { CatalogEntry } from '@platform/tool-sdk';
import type { ProfileRegistry } from '../profiles.js';
import { outcomeOf, type RunnerCall } from '../runner-tool-port.js';
import { allowlistOf, gateError } from '../tool-gate/gate-errors.js';
import { GateRefusalCode, type ToolCaller } from '../tool-gate/gate-rules.js';
import type { CallTarget, ToolGate } from '../tool-gate/tool-gate.js';
import { traced } from '../tool-gate/tool-span.js';
import { argumentsOf, callOutcome } from './call-results.js';
import { ErrorCodes } from '../error-codes.js';

export interface TaskToolCallDependencies {
  gate: ToolGate;
  profiles: Pick<ProfileRegistry, 'resolve' | 'namesFor'>;
  /** The tier of a caller that names none (trigger tasks carry no tier). */
  defaultTier: string;
  logger: Logger;
}

/** The callers a trigger task calls tools as: its condition polls, its custom executor's fires. */
const TASK_CALLERS: ReadonlySet<string> = new Set<ToolCaller>(['condition', 'executor']);
/** A trigger's call ids (`poll:<task>:<time>`, the fire id): printable, bounded. */
const TASK_CALL_ID = /^[\x21-\x7e]{1,200}$/;

type TaskCaller = 'condition' | 'executor';

interface Admitted {
  entry: CatalogEntry;
  call: { id: string; name: string; arguments: Record<string, unknown> };
  target: CallTarget;
}

function callerOf(request: orchestratorV1.CallToolRequest): TaskCaller {
  if (!TASK_CALLERS.has(request.caller))
    throw errors.invalidArgument(ErrorCodes.INVALID_CALLER, `caller must be one of ${[...TASK_CALLERS].join(', ')}`);
  return request.caller as TaskCaller;
}

function validated(request: orchestratorV1.CallToolRequest): TaskCaller {
  const caller = callerOf(request);
  if (!TenantId.safeParse(request.tenantId).success)
    throw errors.invalidArgument(ErrorCodes.INVALID_TENANT_ID, 'tenant_id is invalid');
  if (!TASK_CALL_ID.test(request.callId))
    throw errors.invalidArgument(ErrorCodes.INVALID_CALL_ID, 'call_id must be 1-200 printable characters');
  if (!ToolName.safeParse(request.toolName).success)
    throw errors.notFound(ErrorCodes.TOOL_NOT_FOUND, `no tool '${request.toolName}'`);
  return caller;
}

function resultOf(admitted: Admitted, sent: RunnerCall, durationMs: number): orchestratorV1.ToolCallResult {
  const outcome = callOutcome(sent, durationMs);
  return {
    callId: admitted.call.id,
    toolName: admitted.entry.name,
    status: outcome.status,
    outputJson: outcome.output === undefined ? '' : JSON.stringify(outcome.output),
    truncated: outcome.truncated,
    errorCode: outcome.errorCode,
    errorMessage: outcome.errorMessage,
    durationMs: Math.round(durationMs),
    runner: admitted.entry.runner,
    argumentsJson: JSON.stringify(admitted.call.arguments),
    startedAt: undefined,
    finishedAt: undefined,
  };
}

/** A call the gate refused, as a batch result: `denied`, or `failed` when it may succeed later. */
function refusedResult(request: orchestratorV1.CallToolRequest, err: unknown): orchestratorV1.ToolCallResult {
  const platform = isPlatformError(err)
    ? err
    : errors.internal(ErrorCodes.TOOL_CALL_FAILED, (err as Error)?.message ?? String(err));
  const status = platform.kind === 'unavailable' ? 'failed' : platform.kind === 'internal' ? 'failed' : 'denied';
  return {
    callId: request.callId,
    toolName: request.toolName,
    status,
    outputJson: '',
    truncated: false,
    errorCode: platform.code,
    errorMessage: platform.message,
    durationMs: 0,
    runner: '',
    argumentsJson: request.argumentsJson || '{}',
    startedAt: undefined,
    finishedAt: undefined,
  };
}

/**
 * Tool calls a trigger task makes (CallTool / CallToolBatch with caller `condition` or
 * `executor`), through the same gate as every other call: the task's profile allowlist, read-only
 * tools for conditions (no approval-gated tool, no agent-tool), declared executors for executors,
 * the breaker, the credential grant, call-id dedupe (the fire id). Not journaled here: the trigger
 * records each poll's value and each fire's outcome itself.
 */
export class TaskToolCalls {
  constructor(private readonly deps: TaskToolCallDependencies) {}

  /** Whether the call would be admitted (a task's creation checks its tools so); throws the gate's refusal. */
  async check(request: orchestratorV1.CallToolRequest): Promise<void> {
    try {
      await this.admit(request);
    } catch (err) {
      // A tool whose runner is down right now may still be named: the rules are what is checked.
      if (isPlatformError(err) && err.code === GateRefusalCode.runnerUnavailable) return;
      throw err;
    }
  }

  /** One call; a refusal of the gate is thrown (as for a tried call), a tool's own failure is a result. */
  async call(request: orchestratorV1.CallToolRequest, signal: AbortSignal): Promise<orchestratorV1.ToolCallResult> {
    const admitted = await this.admit(request, signal);
    const started = Date.now();
    const sent = await traced(
      admitted.call,
      () => this.deps.gate.send(admitted.entry, admitted.call, admitted.target),
      outcomeOf,
    );
    return resultOf(admitted, sent, Date.now() - started);
  }

  /**
   * Executor calls of one tool, each admitted on its own (its tenant, its task's profile); those
   * admitted go to the runner together. Every call gets a result, in order; none is thrown.
   */
  async callBatch(
    requests: readonly orchestratorV1.CallToolRequest[],
    signal: AbortSignal,
  ): Promise<orchestratorV1.ToolCallResult[]> {
    const first = requests[0];
    if (!first) return [];
    if (requests.some((r) => r.toolName !== first.toolName || r.caller !== 'executor'))
      throw errors.invalidArgument(ErrorCodes.INVALID_BATCH, 'a batch holds executor calls of one tool');
    const admissions = await Promise.all(
      requests.map(async (request) => this.admit(request, signal).catch((err: unknown) => err)),
    );
    const admitted = admissions.flatMap((a, index) =>
      a && typeof a === 'object' && 'entry' in a ? [{ index, admitted: a as Admitted }] : [],
    );
    const results: orchestratorV1.ToolCallResult[] = requests.map((request, index) =>
      refusedResult(request, admissions[index]),
    );
    if (admitted.length === 0) return results;
    const started = Date.now();
    const sent = await this.deps.gate.sendBatch(
      admitted[0]!.admitted.entry,
      admitted.map(({ admitted: a }) => ({ call: a.call, target: a.target })),
    );
    for (const [i, { index, admitted: a }] of admitted.entries())
      results[index] = resultOf(a, sent[i]!, Date.now() - started);
    return results;
  }

  private async admit(
    request: orchestratorV1.CallToolRequest,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<Admitted> {
    const caller = validated(request);
    const args = argumentsOf(request.argumentsJson);
    const allowlist = allowlistOf(this.deps.profiles, request, this.deps.defaultTier);
    const verdict = await this.deps.gate.admitFresh({ caller, tool: request.toolName, ...allowlist });
    if (verdict.verdict === 'unknown')
      throw errors.notFound(ErrorCodes.TOOL_NOT_FOUND, `no tool '${request.toolName}'`);
    if (verdict.verdict === 'refused') throw gateError(verdict.refusal);
    if (verdict.verdict !== 'send')
      throw errors.internal(
        ErrorCodes.GATE_VERDICT,
        `the tool gate held a ${caller} call of '${request.toolName}' for the user`,
      );
    const { entry } = verdict;
    const timeoutMs = request.timeoutMs > 0 ? Math.min(Number(request.timeoutMs), entry.timeoutMs) : entry.timeoutMs;
    return {
      entry,
      call: { id: request.callId, name: entry.name, arguments: args },
      // The call id stands for the run: a task's call belongs to no run.
      target: {
        tenantId: request.tenantId,
        conversationId: request.conversationId || request.callId,
        runId: request.callId,
        deadlineAt: Date.now() + timeoutMs,
        signal,
      },
    };
  }
}
