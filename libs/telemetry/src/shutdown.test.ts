import { trace } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { shutdownTelemetry } from './shutdown.js';

afterEach(() => trace.disable());

/** Keeps what it exported past shutdown (InMemorySpanExporter forgets on shutdown). */
function recordingExporter(): SpanExporter & { names: string[] } {
  const names: string[] = [];
  return {
    names,
    export(spans, done) {
      names.push(...spans.map((s) => s.name));
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: () => Promise.resolve(),
  };
}

describe('shutdownTelemetry', () => {
  it('is a no-op when no SDK is registered', async () => {
    await expect(shutdownTelemetry()).resolves.toBeUndefined();
  });

  it('flushes spans still buffered by the batch processor, and can be called again', async () => {
    const exporter = recordingExporter();
    // A delay far beyond the test: only the shutdown flush can deliver the span.
    const provider = new TracerProvider({
      spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 60_000 })],
    });
    trace.setGlobalTracerProvider(provider);

    trace.getTracer('test').startSpan('buffered').end();
    expect(exporter.names).toEqual([]);

    await shutdownTelemetry();
    expect(exporter.names).toEqual(['buffered']);
    await expect(shutdownTelemetry()).resolves.toBeUndefined();
  });
});
