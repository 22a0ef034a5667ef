import type { ToolResultStatus } from '@platform/contracts';
import type { StepFailure } from './failures.js';

/** A tool the model may call, as the tool port describes it. */
export interface ToolDescription {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** Agent-tools get the longer timeout and may wait for the user. */
  kind: 'tool' | 'agent';
  /** The tool's own timeout; the loop uses the smaller of this and its configured one. */
  timeoutMs?: number;
  /**
   * What running it twice would do: `none` (reads only), `idempotent` (same effect again) or
   * `external` (a new side effect). Unknown is treated as `external`.
   */
  sideEffect?: 'none' | 'idempotent' | 'external';
  /** The class its failures are recorded with (failures.ts): `coordination` for delegations; default `tool`. */
  failureClass?: 'tool' | 'coordination';
}

/** An agent-tool that stopped to wait for the user. */
export interface PendingAgent {
  callId: string;
  agentName: string;
  waitingFor: 'input' | 'approval';
  /** What to tell the user. */
  prompt: string;
  /** Structured approval request, when waiting for approval. */
  approval?: Record<string, unknown>;
}

/** How one executed call ended, as the port reports it. */
/**
 * How a tool call ended. `diagnostics` say what the transport had to repair in the result's text
 * (e.g. bytes that were not UTF-8); the loop records them with the step.
 */
/**
 * `failures` are failures the port met and recovered from on the way to this outcome (e.g. a
 * delegation reassigned to another role); the loop records them with the call, before the
 * outcome's own failure.
 */
export type ToolOutcome = (
  | { status: 'success'; content: string; truncated?: boolean; diagnostics?: string[] }
  | { status: Exclude<ToolResultStatus, 'success'>; content: string; errorCode: string; diagnostics?: string[] }
  | { status: 'waiting'; content: string; pending: Omit<PendingAgent, 'callId'> }
) & { failures?: StepFailure[] };

export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolCallContext {
  runId: string;
  /** Absolute deadline of this call (epoch ms). */
  deadlineAt: number;
  /** Aborts at the deadline or when the run is cancelled. */
  signal: AbortSignal;
}

/** The tool port: what the loop needs to run tools, wherever they live. */
export interface ToolPort {
  /** The tools offered to the model. */
  list(): ToolDescription[];
  /**
   * Resolves a name the model used. Optional: without it, only listed tools are known. A port
   * may know tools it does not list (e.g. a runner that just went offline), so the call is
   * answered "unavailable" by `execute` instead of "unknown tool".
   */
  lookup?(name: string): ToolDescription | undefined;
  /**
   * Why a name `lookup` does not resolve may still not be run: a tool that exists but that this
   * agent may not use (its profile's allowlist, a plan subtask's tool scope) is `denied`
   * `TOOL_NOT_ALLOWED`, not an unknown tool. Optional: without it, such a name is unknown.
   */
  refuse?(name: string): { status: 'denied'; errorCode: string; content: string } | undefined;
  /** Runs one call. Must not throw for tool failures: those are outcomes. */
  execute(call: ToolCallRequest, context: ToolCallContext): Promise<ToolOutcome>;
}
