import { context as contextApi, propagation, ROOT_CONTEXT, type Context } from '@opentelemetry/api';

/** Writes one header of an outgoing message (e.g. `(k, v) => headers.set(k, v)` for NATS headers). */
export type HeaderSetter = (key: string, value: string) => void;
/** Reads one header of an incoming message; `undefined` when absent. */
export type HeaderGetter = (key: string) => string | undefined;

/**
 * Writes the trace context (W3C `traceparent`/`tracestate`, plus `baggage`) of `ctx` into an
 * outgoing message through `setHeader`, using the globally registered propagator. A no-op when
 * no SDK is registered.
 *
 * @param ctx Context to propagate; defaults to the active one.
 */
export function injectTraceContext(setHeader: HeaderSetter, ctx: Context = contextApi.active()): void {
  propagation.inject(ctx, undefined, {
    // An empty header (the W3C propagator writes `tracestate: ""` when there is none) says nothing
    // and costs bytes on every message: it is left out.
    set: (_carrier, key, value) => {
      if (value !== '') setHeader(key, value);
    },
  });
}

/**
 * Reads the trace context of an incoming message through `getHeader` and returns a context whose
 * remote parent is the sender's span. Run the handling code in it with `context.with(...)`, or use
 * {@link runInMessagingServerSpan}.
 *
 * The result is based on the root context, not the active one: an incoming message starts a new
 * unit of work, and whatever span happened to be active where the subscription loop was started
 * must not become its parent. Without trace headers the result is the root context.
 *
 * The propagators in use only ask for the header names they know, so `keys` is reported empty.
 */
export function extractTraceContext(getHeader: HeaderGetter): Context {
  return propagation.extract(ROOT_CONTEXT, undefined, {
    get: (_carrier, key) => getHeader(key),
    keys: () => [],
  });
}
