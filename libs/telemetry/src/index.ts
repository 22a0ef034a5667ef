// Public API for code inside services and libraries. Depends on @opentelemetry/api only and has no
// import-time side effects: the SDK is started by the `@platform/telemetry/register` entry.
export { withSpan } from './with-span.js';
export { recordSpanError } from './span-status.js';
export {
  recordChatCall,
  recordToolCall,
  recordTurn,
  recordMemoryIngestion,
  recordFailure,
  observeConsumerLag,
  recordTenantTokens,
  recordFireLag,
  recordQuotaRefusal,
  observeGauge,
  type GaugeReading,
} from './metrics.js';
export { startMessagingClientSpan, runInMessagingServerSpan, runInMessagingBatchSpan } from './messaging.js';
export { withChatSpan, withToolExecutionSpan } from './gen-ai.js';
export { shutdownTelemetry } from './shutdown.js';
export { traceFields } from './log-correlation.js';
export { PLATFORM } from './semconv.js';
