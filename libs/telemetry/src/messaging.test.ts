import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInMessagingBatchSpan, runInMessagingServerSpan, startMessagingClientSpan } from './messaging.js';
import { installTestTracing, type TestTracing } from './test-support/tracing-harness.js';

let tracing: TestTracing;
beforeAll(() => {
  tracing = installTestTracing();
});
afterAll(() => tracing.uninstall());
beforeEach(() => tracing.reset());

describe('startMessagingClientSpan', () => {
  it('opens a PRODUCER span with the messaging attributes and leaves the caller context alone', () => {
    const out = startMessagingClientSpan({ subject: 'tools.search', bodySize: 120 });
    expect(trace.getActiveSpan()).toBeUndefined();
    expect(trace.getSpan(out.context)).toBe(out.span);
    out.end();

    const span = tracing.span('request tools.search');
    expect(span.kind).toBe(SpanKind.PRODUCER);
    expect(span.attributes).toEqual({
      'messaging.system': 'nats',
      'messaging.system.name': 'nats',
      'messaging.destination.name': 'tools.search',
      'messaging.operation.name': 'request',
      'messaging.operation.type': 'send',
      'messaging.message.body.size': 120,
    });
  });

  it('names a publish after its operation', () => {
    startMessagingClientSpan({ subject: 'events.audit', operation: 'publish' }).end();
    expect(tracing.span('publish events.audit').attributes['messaging.operation.name']).toBe('publish');
  });

  it('records a failed request when ended with an error', () => {
    const out = startMessagingClientSpan({ subject: 'tools.search' });
    out.end(new Error('503 no responders'));
    const span = tracing.span('request tools.search');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.ended).toBe(true);
  });
});

describe('runInMessagingServerSpan', () => {
  it('runs the handler in a CONSUMER span parented by the headers', async () => {
    const headers = new Map<string, string>();
    const out = startMessagingClientSpan({ subject: 'tools.search' });
    out.inject((k, v) => headers.set(k, v));

    const handlerSpan = await runInMessagingServerSpan(
      { subject: 'tools.search', getHeader: (k) => headers.get(k), queueGroup: 'tool-runners' },
      (span) => {
        expect(trace.getActiveSpan()).toBe(span);
        return span;
      },
    );
    out.end();

    const consumer = tracing.span('process tools.search');
    expect(consumer.spanContext().spanId).toBe(handlerSpan.spanContext().spanId);
    expect(consumer.kind).toBe(SpanKind.CONSUMER);
    expect(consumer.parentSpanContext?.spanId).toBe(out.span.spanContext().spanId);
    expect(consumer.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': 'tools.search',
      'messaging.operation.type': 'process',
      'messaging.consumer.group.name': 'tool-runners',
    });
  });

  it('starts a new trace when the message carries none, and records handler errors', async () => {
    await expect(
      runInMessagingServerSpan({ subject: 'tools.search', getHeader: () => undefined }, () =>
        Promise.reject(new TypeError('bad input')),
      ),
    ).rejects.toThrow('bad input');
    const consumer = tracing.span('process tools.search');
    expect(consumer.parentSpanContext).toBeUndefined();
    expect(consumer.status.code).toBe(SpanStatusCode.ERROR);
    expect(consumer.attributes['error.type']).toBe('TypeError');
  });
});

describe('runInMessagingBatchSpan', () => {
  it('processes a batch in a CONSUMER span of a trace of its own, with its statements and calls below it', async () => {
    const outer = trace.getTracer('test').startSpan('unrelated caller');
    const result = await context.with(trace.setSpan(context.active(), outer), () =>
      runInMessagingBatchSpan(
        { destination: 'MEMORY_INGEST', consumerGroup: 'memory-ingest', messageCount: 3 },
        async () => {
          trace.getTracer('test').startSpan('pg.query:INSERT').end();
          return 'done';
        },
      ),
    );
    outer.end();
    expect(result).toBe('done');

    const batch = tracing.span('process MEMORY_INGEST');
    expect(batch.kind).toBe(SpanKind.CONSUMER);
    expect(batch.parentSpanContext).toBeUndefined();
    expect(batch.spanContext().traceId).not.toBe(outer.spanContext().traceId);
    expect(batch.attributes).toEqual({
      'messaging.system': 'nats',
      'messaging.system.name': 'nats',
      'messaging.destination.name': 'MEMORY_INGEST',
      'messaging.operation.name': 'process',
      'messaging.operation.type': 'process',
      'messaging.consumer.group.name': 'memory-ingest',
      'messaging.batch.message_count': 3,
    });
    expect(tracing.span('pg.query:INSERT').parentSpanContext?.spanId).toBe(batch.spanContext().spanId);
  });
});
