// Builds and starts the NodeSDK for traces only. Loaded by register.ts after the ESM loader hook is in place.
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace';
import type { TelemetryConfig } from './config.js';
import { createInstrumentations } from './instrumentations.js';

function spanProcessor(config: TelemetryConfig): SpanProcessor {
  // Without an endpoint a processor is still needed: NodeSDK only registers a tracer provider when it has
  // one, and a real provider (unlike the API's no-op) mints span ids that downstream services can parent to.
  if (!config.exportEnabled) return new NoopSpanProcessor();
  // The exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS and _TIMEOUT itself; it always sends JSON.
  return new BatchSpanProcessor({
    exporter: new OTLPTraceExporter(),
    scheduledDelayMillis: config.scheduledDelayMillis,
  });
}

/** Starts tracing with the W3C trace-context + baggage propagators; returns the started SDK for shutdown. */
export function startSdk(config: TelemetryConfig): NodeSDK {
  const sdk = new NodeSDK({
    serviceName: config.serviceName,
    instrumentations: createInstrumentations(),
    spanProcessors: [spanProcessor(config)],
    // Traces only: without these, NodeSDK would also start OTLP metric and log exporters from env defaults.
    metricReaders: [],
    logRecordProcessors: [],
    textMapPropagator: new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  });
  sdk.start();
  return sdk;
}
