import { context, createTraceState, propagation, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { extractTraceContext, injectTraceContext } from './propagation.js';
import { runInMessagingServerSpan, startMessagingClientSpan } from './messaging.js';
import { installTestTracing, type TestTracing } from './test-support/tracing-harness.js';

let tracing: TestTracing;
beforeAll(() => {
  tracing = installTestTracing();
});
afterAll(() => tracing.uninstall());
beforeEach(() => tracing.reset());

const tracer = () => trace.getTracer('propagation-test');

describe('injectTraceContext / extractTraceContext', () => {
  it('round-trips the active span through a header map', () => {
    const headers = new Map<string, string>();
    const span = tracer().startSpan('sender');
    context.with(trace.setSpan(context.active(), span), () => injectTraceContext((k, v) => headers.set(k, v)));
    span.end();

    const sent = span.spanContext();
    expect(headers.get('traceparent')).toBe(`00-${sent.traceId}-${sent.spanId}-01`);

    const received = trace.getSpanContext(extractTraceContext((k) => headers.get(k)));
    expect(received).toMatchObject({ traceId: sent.traceId, spanId: sent.spanId, isRemote: true });
  });

  it('writes no empty header: a context whose tracestate is empty sends no tracestate', () => {
    const headers = new Map<string, string>();
    // What a parent that arrived with an empty `tracestate` (or a sampler's empty state) leaves.
    const parent = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      traceState: createTraceState(''),
    };
    injectTraceContext((k, v) => headers.set(k, v), trace.setSpanContext(context.active(), parent));
    expect(headers.get('traceparent')).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(headers.has('tracestate')).toBe(false);
    expect([...headers.values()]).not.toContain('');
  });

  it('injects an explicit context rather than the active one', () => {
    const headers: Record<string, string> = {};
    const span = tracer().startSpan('explicit');
    injectTraceContext((k, v) => (headers[k] = v), trace.setSpan(context.active(), span));
    span.end();
    expect(headers['traceparent']).toContain(span.spanContext().spanId);
  });

  it('carries baggage alongside the trace context', () => {
    const headers = new Map<string, string>();
    const withBaggage = propagation.setBaggage(
      context.active(),
      propagation.createBaggage({ 'tenant.id': { value: 't-42' } }),
    );
    injectTraceContext((k, v) => headers.set(k, v), withBaggage);
    const extracted = extractTraceContext((k) => headers.get(k));
    expect(propagation.getBaggage(extracted)?.getEntry('tenant.id')?.value).toBe('t-42');
  });

  it('writes nothing without a span and extracts no parent from empty headers', () => {
    const headers = new Map<string, string>();
    injectTraceContext((k, v) => headers.set(k, v));
    expect(headers.has('traceparent')).toBe(false);
    expect(trace.getSpanContext(extractTraceContext(() => undefined))).toBeUndefined();
  });

  it('does not adopt the span active at the receiver as parent', () => {
    const unrelated = tracer().startSpan('subscription-loop');
    const extracted = context.with(trace.setSpan(context.active(), unrelated), () =>
      extractTraceContext(() => undefined),
    );
    unrelated.end();
    expect(trace.getSpan(extracted)).toBeUndefined();
  });
});

describe('a NATS-style hop through serialized headers', () => {
  it('continues the trace on the receiving side', async () => {
    // Requester: open the PRODUCER span and put its context into message headers.
    const outgoing = startMessagingClientSpan({ subject: 'tools.calculator' });
    const headers = new Map<string, string>();
    outgoing.inject((k, v) => headers.set(k, v));
    // The wire: headers are plain strings; nothing else crosses the process boundary.
    const wire = JSON.stringify([...headers]);

    // Responder: rebuild the headers from bytes and handle the message.
    const received = new Map<string, string>(JSON.parse(wire) as [string, string][]);
    const reply = await runInMessagingServerSpan(
      { subject: 'tools.calculator', getHeader: (k) => received.get(k) },
      () => 'result',
    );
    outgoing.end();

    expect(reply).toBe('result');
    const producer = tracing.span('request tools.calculator');
    const consumer = tracing.span('process tools.calculator');
    expect(consumer.spanContext().traceId).toBe(producer.spanContext().traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
    expect(consumer.parentSpanContext?.isRemote).toBe(true);
  });
});
