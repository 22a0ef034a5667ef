import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceFields } from './log-correlation.js';
import { installTestTracing, type TestTracing } from './test-support/tracing-harness.js';

let tracing: TestTracing;
beforeAll(() => {
  tracing = installTestTracing();
});
afterAll(() => tracing.uninstall());

describe('traceFields', () => {
  it("gives the active span's trace and span ids, across awaits, and nothing outside a span", async () => {
    expect(traceFields()).toEqual({});
    await trace.getTracer('test').startActiveSpan('outer', async (span) => {
      await new Promise((r) => setTimeout(r, 1));
      expect(traceFields()).toEqual({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
      span.end();
    });
    expect(traceFields()).toEqual({});
  });

  it("puts them on the log lines a pino logger writes inside the span (as service-kit's logger does)", () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logger = pino({ mixin: traceFields }, sink);
    logger.info('outside');
    const ids = trace.getTracer('test').startActiveSpan('logged', (span) => {
      logger.info('inside');
      span.end();
      return span.spanContext();
    });
    expect(lines[0]).not.toHaveProperty('trace_id');
    expect(lines[1]).toMatchObject({ msg: 'inside', trace_id: ids.traceId, span_id: ids.spanId });
  });
});
