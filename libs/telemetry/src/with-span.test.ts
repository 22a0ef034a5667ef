import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withSpan } from './with-span.js';
import { installTestTracing, type TestTracing } from './test-support/tracing-harness.js';

let tracing: TestTracing;
beforeAll(() => {
  tracing = installTestTracing();
});
afterAll(() => tracing.uninstall());
beforeEach(() => tracing.reset());

class QuotaError extends Error {
  override name = 'QuotaError';
}

describe('withSpan', () => {
  it('returns the result and ends the span, with the span active inside across awaits', async () => {
    const result = await withSpan(
      'test',
      'work',
      { kind: SpanKind.INTERNAL, attributes: { 'work.size': 3 } },
      async (span) => {
        await new Promise((r) => setTimeout(r, 1));
        expect(trace.getActiveSpan()).toBe(span);
        return 42;
      },
    );
    expect(result).toBe(42);
    const span = tracing.span('work');
    expect(span.ended).toBe(true);
    expect(span.attributes['work.size']).toBe(3);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.instrumentationScope.name).toBe('test');
  });

  it('accepts synchronous functions', async () => {
    await expect(withSpan('test', 'sync', {}, () => 'done')).resolves.toBe('done');
    expect(tracing.span('sync').ended).toBe(true);
  });

  it('nests under the active span', async () => {
    await withSpan('test', 'outer', {}, () => withSpan('test', 'inner', {}, () => undefined));
    expect(tracing.span('inner').parentSpanContext?.spanId).toBe(tracing.span('outer').spanContext().spanId);
  });

  it('starts under an explicit parent context when given one', async () => {
    const parent = trace.getTracer('test').startSpan('explicit-parent');
    await withSpan('test', 'child', { parent: trace.setSpan(context.active(), parent) }, () => undefined);
    parent.end();
    expect(tracing.span('child').parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });

  it('records a thrown error, marks the span failed, ends it and rethrows the same error', async () => {
    const error = new QuotaError('quota exceeded');
    await expect(
      withSpan('test', 'failing', {}, async () => {
        await Promise.resolve();
        throw error;
      }),
    ).rejects.toBe(error);

    const span = tracing.span('failing');
    expect(span.ended).toBe(true);
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'quota exceeded' });
    expect(span.attributes['error.type']).toBe('QuotaError');
    const exception = span.events.find((e) => e.name === 'exception');
    expect(exception?.attributes?.['exception.type']).toBe('QuotaError');
    expect(exception?.attributes?.['exception.message']).toBe('quota exceeded');
  });

  it('handles non-Error throwables', async () => {
    // Deliberately not an Error: code may reject with anything.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    await expect(withSpan('test', 'odd', {}, () => Promise.reject('plain string'))).rejects.toBe('plain string');
    const span = tracing.span('odd');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('_OTHER');
  });
});
