import type { orchestratorV1 } from '@platform/proto';
import { errors, isPlatformError, type PromiseClient } from '@platform/service-kit';
import { ORCHESTRATOR_EXECUTOR, type TaskSpec } from './task-spec.js';
import { ErrorCodes, taskToolRefusals } from './error-codes.js';

export type OrchestratorToolClient = Pick<
  PromiseClient<orchestratorV1.OrchestratorServiceClient>,
  'callTool' | 'callToolBatch'
>;

/** Who a task's tool call is for: a condition poll, or a custom executor's fire. */
type TaskToolCaller = 'condition' | 'executor';

/** One tool call of a task, as the orchestrator's tool gate gets it. */
export interface TaskToolCall {
  caller: TaskToolCaller;
  tenantId: string;
  /** The task's agent profile (`action.profile`): the call passes its tool allowlist; empty = the default. */
  profile: string;
  toolName: string;
  arguments: unknown;
  /** The fire id for an executor, `poll:<task>:<time>` for a condition: runners dedupe on it. */
  callId: string;
  /** The task id: what the runner sees as the call's conversation. */
  conversationId: string;
  timeoutMs: number;
}

function request(call: TaskToolCall, dryRun: boolean): orchestratorV1.CallToolRequest {
  return {
    tenantId: call.tenantId,
    toolName: call.toolName,
    argumentsJson: JSON.stringify(call.arguments ?? {}),
    callId: call.callId,
    subject: '',
    tier: '',
    profile: call.profile,
    caller: call.caller,
    conversationId: call.conversationId,
    timeoutMs: call.timeoutMs,
    dryRun,
  };
}

/**
 * The trigger's way to tools: every call goes to the orchestrator's tool gate (CallTool,
 * CallToolBatch) and never straight to a runner over NATS, so a task meets the same allowlist,
 * approval gate, breakers, grants and call-id dedupe as any other caller.
 */
export class OrchestratorTools {
  constructor(
    private readonly orchestrator: OrchestratorToolClient,
    private readonly deadlineMs: number,
  ) {}

  /** One call. A refusal of the gate is thrown as the orchestrator's PlatformError. */
  async call(call: TaskToolCall, signal?: AbortSignal): Promise<orchestratorV1.ToolCallResult> {
    const { call: result } = await this.orchestrator.callTool(request(call, false), {
      deadlineMs: call.timeoutMs + this.deadlineMs,
      ...(signal ? { signal } : {}),
    });
    if (!result)
      throw errors.internal(ErrorCodes.EMPTY_TOOL_RESULT, 'the orchestrator answered a tool call without its result');
    return result;
  }

  /** Executor calls of one tool that started together: one request, one result per call, in order. */
  async callBatch(calls: readonly TaskToolCall[], signal?: AbortSignal): Promise<orchestratorV1.ToolCallResult[]> {
    const longest = Math.max(...calls.map((c) => c.timeoutMs));
    const { results } = await this.orchestrator.callToolBatch(
      { calls: calls.map((c) => request(c, false)) },
      { deadlineMs: longest + this.deadlineMs, ...(signal ? { signal } : {}) },
    );
    if (results.length !== calls.length)
      throw errors.internal(
        ErrorCodes.TOOL_BATCH_MISMATCH,
        `the orchestrator answered ${results.length} of ${calls.length} calls`,
      );
    return results;
  }

  /**
   * Checks a task's tools against the gate as its polls and fires will be (a dry run): a condition
   * tool must be one the task's profile allows that needs nobody (no approval, not an agent-tool);
   * a custom executor must be a tool its runner declares an executor. Refusals are 400s naming
   * the field, with the gate's code as `details.reason`.
   */
  async checkTask(tenantId: string, spec: TaskSpec): Promise<void> {
    const profile = spec.action.profile ?? '';
    const base = { tenantId, profile, arguments: {}, callId: 'task-check', conversationId: 'task-check', timeoutMs: 0 };
    if (spec.trigger.type === 'condition')
      await this.check({
        ...base,
        caller: 'condition',
        toolName: spec.trigger.tool,
        arguments: spec.trigger.arguments ?? {},
      });
    if (spec.executor !== ORCHESTRATOR_EXECUTOR)
      await this.check({ ...base, caller: 'executor', toolName: spec.executor });
  }

  private async check(call: TaskToolCall): Promise<void> {
    try {
      await this.orchestrator.callTool(request(call, true), { deadlineMs: this.deadlineMs });
    } catch (err) {
      throw refusalOf(call, err);
    }
  }
}

/** The gate's refusal of a task's tool as the task's own 400; an orchestrator that is not there stays what it was. */
function refusalOf(call: TaskToolCall, err: unknown): unknown {
  if (!isPlatformError(err)) return err;
  if (err.kind === 'unavailable' && err.code !== 'RUNNER_UNAVAILABLE') return err;
  if (err.kind === 'deadline_exceeded' || err.kind === 'internal' || err.kind === 'cancelled') return err;
  const { code, field } = taskToolRefusals[call.caller];
  return errors.invalidArgument(code, `${field}: ${err.message}`, {
    details: { reason: err.code, issues: [{ field, message: err.message }] },
  });
}
