import type { ToolResultStatus } from '@platform/contracts';
import type { ModelErrorKind } from './model-errors.js';
import type { RetryDecision } from './model-retry.js';

/**
 * The failure taxonomy (seed 003 §7): every failed step of a run is recorded with the class of
 * what failed, a short kind, a severity and the recovery that was applied. One module for the
 * whole platform: the loop classifies model and tool failures here, the orchestrator its
 * delegation, plan and infrastructure failures.
 */
export type FailureClass = 'llm' | 'tool' | 'planning' | 'coordination' | 'system';

/** low: the run goes on unharmed; medium: a step was lost; high: the run's answer suffers or it stopped; critical: a person must act. */
export type Severity = 'low' | 'medium' | 'high' | 'critical';

/**
 * What was done about it: `retry` the same step again, `fallback` to another model, `replan` the
 * plan, `reassign` the task to another role, `escalate` to the user, `none` (the failure is the
 * step's result: the model sees it and decides).
 */
export type Recovery = 'retry' | 'fallback' | 'replan' | 'reassign' | 'escalate' | 'none';

/** One classified failure of a step. `kind` is a short snake_case name (`timeout`, `unknown_tool`...). */
export interface StepFailure {
  class: FailureClass;
  kind: string;
  severity: Severity;
  recovery: Recovery;
}

const MODEL_SEVERITY: Record<ModelErrorKind, Severity> = {
  rate_limit: 'low',
  timeout: 'medium',
  server: 'medium',
  context_overflow: 'medium',
  quota_exhausted: 'high',
  auth: 'high',
  bad_request: 'high',
  cancelled: 'low',
};

/**
 * A failed model call and what the retry layer did about it: `retry` (again, or with a smaller
 * request view), `fallback` (the next model of the profile's list), or `none` when nothing is left
 * to try (the run stops on it, so the severity is at least high). A cancelled call is no failure.
 */
export function classifyModelFailure(
  kind: ModelErrorKind,
  decision: RetryDecision['action'],
  hasNextModel: boolean,
): StepFailure | undefined {
  if (kind === 'cancelled') return undefined;
  const recovery: Recovery =
    decision === 'retry' || decision === 'shrink_view'
      ? 'retry'
      : decision === 'next_model' && hasNextModel
        ? 'fallback'
        : 'none';
  const base = MODEL_SEVERITY[kind];
  return { class: 'llm', kind, severity: recovery === 'none' && base !== 'high' ? 'high' : base, recovery };
}

/** The model's reply did not follow the protocol; it is told why and asked again. */
export const MALFORMED_OUTPUT: StepFailure = {
  class: 'llm',
  kind: 'malformed_output',
  severity: 'low',
  recovery: 'retry',
};
/** The provider withheld the answer (content filter). */
export const MODEL_REFUSAL: StepFailure = { class: 'llm', kind: 'refusal', severity: 'medium', recovery: 'none' };

type Row = Omit<StepFailure, 'recovery'> & { recovery?: Recovery };

/** Known error codes of tool results (the loop's, the runner port's, the delegation step's). */
const BY_CODE: Record<string, Row> = {
  TIMEOUT: { class: 'tool', kind: 'timeout', severity: 'medium' },
  UNKNOWN_TOOL: { class: 'tool', kind: 'unknown_tool', severity: 'low' },
  INVALID_ARGUMENTS: { class: 'tool', kind: 'invalid_arguments', severity: 'low' },
  RUNNER_UNAVAILABLE: { class: 'tool', kind: 'runner_unavailable', severity: 'medium' },
  TOOL_CIRCUIT_OPEN: { class: 'tool', kind: 'breaker_open', severity: 'medium' },
  TOOL_NOT_ALLOWED: { class: 'tool', kind: 'not_allowed', severity: 'low' },
  DENIED: { class: 'tool', kind: 'approval_denied', severity: 'medium', recovery: 'escalate' },
  APPROVAL_UNAVAILABLE: { class: 'tool', kind: 'approval_unavailable', severity: 'medium' },
  // The model asked for more than a step or a turn may run, or the same call again.
  TOO_MANY_CALLS: { class: 'llm', kind: 'too_many_calls', severity: 'low' },
  TURN_CALL_LIMIT: { class: 'llm', kind: 'turn_call_limit', severity: 'medium' },
  REPEATED_CALL: { class: 'llm', kind: 'repeated_call', severity: 'low' },
  DEADLINE: { class: 'system', kind: 'turn_deadline', severity: 'high' },
  HOOK_FAILED: { class: 'system', kind: 'hook_failed', severity: 'high' },
  TOOL_PORT_FAILED: { class: 'system', kind: 'tool_port_failed', severity: 'high' },
  DELEGATION_LOOP: { class: 'coordination', kind: 'delegation_loop', severity: 'medium' },
  DELEGATION_DEPTH_EXCEEDED: { class: 'coordination', kind: 'depth_exceeded', severity: 'medium' },
  ROLE_UNAVAILABLE: { class: 'coordination', kind: 'role_unavailable', severity: 'medium' },
  CHILD_RUN_FAILED: { class: 'coordination', kind: 'child_failed', severity: 'medium' },
};

/** Results that are no failure of the step: the run was cancelled, or a call waits for the user. */
const NOT_FAILURES = new Set(['CANCELLED', 'AWAITING_APPROVAL', 'AWAITING_INPUT', 'STOP_CONDITION', 'SKIPPED_BY_HOOK']);

/**
 * Classifies a tool result. `toolClass` is the class failures of that tool belong to by default:
 * `coordination` for delegations (a delegation that times out is a child timeout), `tool`
 * otherwise. Undefined for a success, a cancellation or a call that waits for the user.
 */
export function classifyToolResult(
  status: ToolResultStatus,
  errorCode: string | undefined,
  toolClass: 'tool' | 'coordination' = 'tool',
): StepFailure | undefined {
  if (status === 'success' || status === 'cancelled' || (errorCode !== undefined && NOT_FAILURES.has(errorCode)))
    return undefined;
  const row = errorCode ? BY_CODE[errorCode] : undefined;
  if (row) {
    const coordinated = toolClass === 'coordination' && row.class === 'tool';
    return {
      class: coordinated ? 'coordination' : row.class,
      kind: coordinated ? `child_${row.kind}` : row.kind,
      severity: row.severity,
      recovery: row.recovery ?? 'none',
    };
  }
  return { class: toolClass, kind: (errorCode ?? status).toLowerCase(), severity: 'medium', recovery: 'none' };
}

/** The failure recorded for a step, with what followed it: a recovery that was tried after all. */
export function withRecovery(failure: StepFailure, recovery: Recovery): StepFailure {
  return { ...failure, recovery };
}
