import { SpanStatusCode, type Span } from '@opentelemetry/api';

/** The `error.type` of a failure: the error's class name, `_OTHER` for a thrown non-error. */
export function errorType(error: unknown): string {
  return error instanceof Error ? error.name || error.constructor.name : '_OTHER';
}

/** Marks `span` as failed by `error`: exception event, ERROR status and the `error.type` attribute. */
export function recordSpanError(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setAttribute('error.type', errorType(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  } else {
    span.recordException(String(error));
    span.setAttribute('error.type', '_OTHER');
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
  }
}
