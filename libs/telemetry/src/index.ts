// Public API for code inside services and libraries. Depends on @opentelemetry/api only and has no
// import-time side effects: the SDK is started by the `@platform/telemetry/register` entry.
export { injectTraceContext, extractTraceContext, type HeaderGetter, type HeaderSetter } from './propagation.js';
export { withSpan } from './with-span.js';
export { errorType, recordSpanError } from './span-status.js';
export {
  recordChatCall,
  recordToolCall,
  recordTurn,
  recordMemoryIngestion,
  recordFailure,
  type FailureRecord,
  observeConsumerLag,
  recordTenantTokens,
  recordFireLag,
  recordQuotaRefusal,
  observeGauge,
  type GaugeReading,
  type ChatCallRecord,
  type ToolCallRecord,
  type TurnRecord,
} from './metrics.js';
export {
  startMessagingClientSpan,
  runInMessagingServerSpan,
  runInMessagingBatchSpan,
  type MessagingBatchSpanOptions,
  type MessagingClientSpan,
  type MessagingClientSpanOptions,
  type MessagingServerSpanOptions,
} from './messaging.js';
export {
  withChatSpan,
  withToolExecutionSpan,
  chatRequestAttributes,
  chatResponseAttributes,
  toolExecutionAttributes,
  type ChatRequestInfo,
  type ChatResponseInfo,
  type ChatSpan,
  type ToolExecutionInfo,
} from './gen-ai.js';
export { shutdownTelemetry } from './shutdown.js';
export { traceFields, type TraceFields } from './log-correlation.js';
export { METRIC, PLATFORM } from './semconv.js';
