import {
  AgentStepOutput,
  type AgentCallRequest,
  type AgentStepInput,
  type SideEffect,
  type ToolCallResponse,
} from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import type { ToolClient } from '@platform/tool-sdk';

/** One agent step to send: the call's identity, the agent-protocol request body and its deadline. */
export interface AgentStepCall {
  agentName: string;
  /** The deterministic runner call id of this step (`stepCallId`). */
  callId: string;
  tenantId: string;
  conversationId: string;
  runId: string | undefined;
  request: AgentCallRequest;
  /** Absolute deadline (epoch ms) for the step, retries included. */
  deadlineAt: number;
  /** From the catalog: lets the client re-send a step that got no answer (tool-sdk `mayRetryUnanswered`). */
  sideEffect?: SideEffect | undefined;
  dedupe?: boolean | undefined;
  /** The orchestrator's credential grant for this call, passed on to the runner (never stored). */
  credentialGrant?: string | undefined;
}

/**
 * What a step came to:
 * - `output`: the agent answered with its next state;
 * - `rejected`: the runner answered, but not with a state (`invalid`, `failed` by the handler, or
 *   an output that breaks the agent protocol): the step ran, and the entry ends in status error;
 * - `unavailable`: no runner took the step (no responders, every replica busy, transport down);
 * - `timeout`: no answer before the deadline; the step may or may not have run.
 * The last two leave the entry unchanged: a retry sends the same call id, which runners dedupe.
 */
export type StepResult =
  | { kind: 'output'; output: AgentStepOutput }
  | { kind: 'rejected'; code: string; message: string }
  | { kind: 'unavailable'; message: string }
  | { kind: 'timeout'; message: string };

/** How a call that produced no usable output went (the same for an agent step and a plain tool). */
export type CallFailure = Exclude<StepResult, { kind: 'output' }>;

/** A plain tool's call that the pool runs once the user approved it (an approval gate). */
export interface ApprovedToolCall {
  toolName: string;
  /** The model's call id: the call runs under the id it was made with. */
  callId: string;
  tenantId: string;
  conversationId: string;
  runId: string | undefined;
  arguments: Record<string, unknown>;
  deadlineAt: number;
  sideEffect?: SideEffect | undefined;
  dedupe?: boolean | undefined;
  credentialGrant?: string | undefined;
}

/** What an approved tool call came to: the tool's output, or a failure as for a step. */
export type ToolRunResult = { kind: 'output'; output: unknown } | CallFailure;

export interface AgentStepClientOptions {
  tools: ToolClient;
  logger: Logger;
  /** Put into an approval request that carries no `timeoutMinutes`. Default 30. */
  defaultApprovalTimeoutMinutes?: number;
}

/** Failure codes after which nothing is known to have run: the entry must stay as it is. */
const NOT_TAKEN = new Set(['RUNNER_UNAVAILABLE', 'RUNNER_BUSY', 'TRANSPORT_FAILED']);

function describeIssues(issues: ReadonlyArray<{ path: string; message: string }> | undefined): string {
  if (!issues?.length) return '';
  return ` (${issues.map((i) => `${i.path}: ${i.message}`).join('; ')})`;
}

/** Sorts a response that carries no output into what the pool does about it. */
function failureOf(response: Exclude<ToolCallResponse, { status: 'success' }>): CallFailure {
  switch (response.status) {
    case 'timeout':
      return { kind: 'timeout', message: response.error.message };
    case 'busy':
      return { kind: 'unavailable', message: response.error.message };
    case 'failed':
      if (NOT_TAKEN.has(response.error.code)) return { kind: 'unavailable', message: response.error.message };
      return { kind: 'rejected', code: response.error.code, message: response.error.message };
    case 'invalid':
      return {
        kind: 'rejected',
        code: response.error.code,
        message: `${response.error.message}${describeIssues(response.error.issues)}`,
      };
  }
}

/**
 * Sends agent-tool steps, and plain tools' approved calls, with tool-sdk's ToolClient (tool protocol v1 headers, the agent-protocol
 * body `{arguments, agent}`, its busy and transport retry policy) and sorts the response into what
 * the pool does with it.
 */
export class AgentStepClient {
  constructor(private readonly options: AgentStepClientOptions) {}

  async step(call: AgentStepCall): Promise<StepResult> {
    const response = await this.send(
      { ...call, toolName: call.agentName, arguments: call.request.arguments },
      call.request.agent,
    );
    return this.classify(call, response);
  }

  /** Runs a plain tool's approved call (tool protocol v1, the plain body `{arguments}`). */
  async runTool(call: ApprovedToolCall): Promise<ToolRunResult> {
    const response = await this.send(call);
    return response.status === 'success' ? { kind: 'output', output: response.output } : failureOf(response);
  }

  private send(call: ApprovedToolCall, agent?: AgentStepInput): Promise<ToolCallResponse> {
    return this.options.tools.call({
      toolName: call.toolName,
      arguments: call.arguments,
      callId: call.callId,
      tenantId: call.tenantId,
      conversationId: call.conversationId,
      ...(call.runId ? { runId: call.runId } : {}),
      deadlineAt: call.deadlineAt,
      ...(call.sideEffect ? { sideEffect: call.sideEffect } : {}),
      ...(call.dedupe !== undefined ? { dedupe: call.dedupe } : {}),
      ...(agent ? { agent } : {}),
      ...(call.credentialGrant ? { credentialGrant: call.credentialGrant } : {}),
    });
  }

  private classify(call: AgentStepCall, response: ToolCallResponse): StepResult {
    if (response.status !== 'success') return failureOf(response);
    const output = AgentStepOutput.safeParse(this.withApprovalTimeout(response.output));
    if (output.success) return { kind: 'output', output: output.data };
    this.options.logger.warn(
      { agent: call.agentName, callId: call.callId, issues: output.error.issues },
      'agent runner sent an output that breaks the agent protocol',
    );
    return {
      kind: 'rejected',
      code: 'AGENT_PROTOCOL_VIOLATION',
      message: `the agent '${call.agentName}' answered with an output that is not an agent step state`,
    };
  }

  /** An approval request without `timeoutMinutes` gets the configured default instead of failing the step. */
  private withApprovalTimeout(output: unknown): unknown {
    if (!output || typeof output !== 'object') return output;
    const o = output as Record<string, unknown>;
    const approval = o['approval'];
    if (
      o['state'] !== 'waiting_for_approval' ||
      !approval ||
      typeof approval !== 'object' ||
      'timeoutMinutes' in approval
    )
      return output;
    return { ...o, approval: { ...approval, timeoutMinutes: this.options.defaultApprovalTimeoutMinutes ?? 30 } };
  }
}
