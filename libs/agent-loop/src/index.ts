export {
  ZERO_USAGE,
  type ToolSchema,
  type TokenUsage,
  type ModelRequest,
  type ToolCallDelta,
  type ModelResponse,
  type ModelPort,
  type FinishReason,
  type JsonSchemaResponseFormat,
  type SamplingParameters,
} from './model-port.js';
export { ModelError, ResponseFormatRejectedError, isModelError, type ModelErrorKind } from './model-errors.js';
export { allowsStrictMode } from './strict-schema.js';
export { LoopConfigSchema, compileLoopConfig, DEFAULT_LOOP_CONFIG, type LoopConfig } from './loop-config.js';
export { systemClock } from './clock.js';
export type {
  ToolPort,
  ToolDescription,
  ToolOutcome,
  ToolCallRequest,
  ToolCallContext,
  PendingAgent,
} from './tool-port.js';
export type { LoopEvent } from './events.js';
export type { AnswerVerdict } from './hooks.js';
export {
  classifyToolResult,
  withRecovery,
  type FailureClass,
  type Severity,
  type Recovery,
  type StepFailure,
} from './failures.js';
export {
  StopReasons,
  type LoopResult,
  type AnswerIssue,
  type ToolCallRecord,
  type IterationRecord,
  type AgentLoopResult,
  type TranscriptEntry,
  type PlanCallNote,
  type PlanOutputMode,
} from './loop-result.js';
export { ContextManager } from './context-manager.js';
export { buildRequestView } from './request-view.js';
export { DEFAULT_RETRY_STRATEGIES } from './model-retry.js';
export { RunControl } from './run-control.js';
export { stopMessages } from './stop-messages.js';
export { linkSignals } from './linked-signal.js';
export { assembleTurnInput, isTimeZone } from './turn-input.js';
export { runAgentLoop } from './agent-loop.js';
export { callModelWithRecovery } from './model-call.js';
