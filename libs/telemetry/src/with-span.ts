import { context as contextApi, trace, type Context, type Span, type SpanOptions } from '@opentelemetry/api';
import { recordSpanError } from './span-status.js';

/**
 * Runs `fn` inside a new active span and ends the span when `fn` settles. If `fn` throws or
 * rejects, the exception is recorded, the span gets ERROR status and `error.type`, and the error
 * is rethrown unchanged.
 *
 * @param tracerName Instrumentation scope, conventionally the calling package (e.g. `@platform/orchestrator`).
 * @param spanName Low-cardinality operation name: no ids or user input.
 * @param options Kind, attributes, links, start time. Pass `parent` to start under another context than the active one.
 */
export async function withSpan<T>(
  tracerName: string,
  spanName: string,
  options: SpanOptions & { parent?: Context },
  fn: (span: Span) => T | Promise<T>,
): Promise<T> {
  const { parent = contextApi.active(), ...spanOptions } = options;
  const tracer = trace.getTracer(tracerName);
  return tracer.startActiveSpan(spanName, spanOptions, parent, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      recordSpanError(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}
