export {
  ZERO_USAGE,
  addUsage,
  type ToolSchema,
  type TokenUsage,
  type ModelRequest,
  type ModelResponse,
  type ModelPort,
  type FinishReason,
  type JsonSchemaResponseFormat,
} from './model-port.js';
export {
  ModelError,
  ModelErrorKinds,
  ResponseFormatRejectedError,
  isModelError,
  type ModelErrorKind,
  type ModelErrorOptions,
} from './model-errors.js';
export { allowsStrictMode } from './strict-schema.js';
export {
  LoopConfigSchema,
  compileLoopConfig,
  DEFAULT_LOOP_CONFIG,
  LoopConfigError,
  type LoopConfig,
  type LoopConfigInput,
} from './loop-config.js';
export { systemClock, type Clock } from './clock.js';
export type {
  ToolPort,
  ToolDescription,
  ToolOutcome,
  ToolCallRequest,
  ToolCallContext,
  PendingAgent,
} from './tool-port.js';
export type { LoopEvent, EventSink, RunState } from './events.js';
export { finalAnswerMarker, type LoopHooks, type BeforeToolDecision, type StopPredicate } from './hooks.js';
export {
  FailureClasses,
  Severities,
  Recoveries,
  classifyModelFailure,
  classifyToolResult,
  withRecovery,
  MALFORMED_OUTPUT,
  MODEL_REFUSAL,
  type FailureClass,
  type Severity,
  type Recovery,
  type StepFailure,
} from './failures.js';
export {
  StopReasons,
  type StopReason,
  type LoopResult,
  type ToolCallRecord,
  type IterationRecord,
  type AgentLoopResult,
  type TranscriptEntry,
  type PlanStepRecord,
  type PlanCallNote,
  type PlanOutputMode,
} from './loop-result.js';
export type { TextRepair } from './text-repairs.js';
export { ContextManager, type TruncatedText } from './context-manager.js';
export {
  buildRequestView,
  ViewStages,
  type RequestView,
  type ViewStage,
  type ViewDiagnostic,
  type ViewTarget,
} from './request-view.js';
export { DEFAULT_RETRY_STRATEGIES, type RetryStrategy, type RetryDecision } from './model-retry.js';
export { sanitizeToolName } from './sanitize-tool-name.js';
export { RunControl } from './run-control.js';
export { linkSignals, type LinkedSignal } from './linked-signal.js';
export { assembleTurnInput, isTimeZone, type TurnInputParts } from './turn-input.js';
export { runAgentLoop, type LoopInput, type LoopDependencies } from './agent-loop.js';
export { callModelWithRecovery, type ModelCallParams, type ModelCallOutcome } from './model-call.js';
