// Tracing across NATS, which OpenTelemetry's instrumentations do not cover: the sender puts the
// active span's context in the message's headers; the receiver continues the trace under it.
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';
import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('skeleton');

/** NATS headers carrying the active trace context. */
export function tracedHeaders(): MsgHdrs {
  const headers = natsHeaders();
  propagation.inject(context.active(), headers, { set: (carrier, key, value) => carrier.set(key, value) });
  return headers;
}

/** Runs `work` in a new span named `name`, child of the context in `headers` (or of the active one). */
export function inSpan<T>(name: string, work: () => Promise<T>, headers?: MsgHdrs): Promise<T> {
  const parent = headers
    ? propagation.extract(context.active(), headers, {
        get: (carrier, key) => carrier.get(key) || undefined,
        keys: (carrier) => carrier.keys(),
      })
    : context.active();
  return tracer.startActiveSpan(name, {}, parent, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}
