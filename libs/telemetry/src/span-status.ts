import { SpanStatusCode, type Span } from '@opentelemetry/api';

/** Marks `span` as failed by `error`: exception event, ERROR status and the `error.type` attribute. */
export function recordSpanError(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setAttribute('error.type', error.name || error.constructor.name);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  } else {
    span.recordException(String(error));
    span.setAttribute('error.type', '_OTHER');
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
  }
}
