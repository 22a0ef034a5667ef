import { isSpanContextValid, trace } from '@opentelemetry/api';

/** Fields that tie a log line to the trace it was written in. */
export interface TraceFields {
  trace_id?: string;
  span_id?: string;
}

/**
 * The active span's trace and span ids, for a log line written inside it (empty outside a span,
 * or when tracing is off): a log line then leads to its trace, and a trace to its log lines.
 */
export function traceFields(): TraceFields {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}
