// Builds and starts the NodeSDK for traces and metrics. Loaded by register.ts after the ESM loader hook is in place.
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { PROMETHEUS_METRICS_PATH, type TelemetryConfig } from './config.js';
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

function metricReaders(config: TelemetryConfig): IMetricReader[] {
  if (!config.metricsExportEnabled) return [];
  if (config.prometheus) {
    // Serves /metrics for Prometheus to scrape (pods expose it as the container port `metrics`).
    return [
      new PrometheusExporter({
        port: config.prometheus.port,
        endpoint: PROMETHEUS_METRICS_PATH,
        ...(config.prometheus.host ? { host: config.prometheus.host } : {}),
      }),
    ];
  }
  // The exporter reads OTEL_EXPORTER_OTLP_(METRICS_)ENDPOINT, _HEADERS and _TIMEOUT itself; it always sends JSON.
  return [
    new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter(),
      exportIntervalMillis: config.metricExportIntervalMillis,
    }),
  ];
}

/** Starts tracing (and metrics, when exported) with the W3C trace-context + baggage propagators; returns the started SDK for shutdown. */
export function startSdk(config: TelemetryConfig): NodeSDK {
  const sdk = new NodeSDK({
    serviceName: config.serviceName,
    instrumentations: createInstrumentations(config.instrumentations),
    spanProcessors: [spanProcessor(config)],
    // Explicit: without these, NodeSDK would start metric and log exporters from env defaults.
    metricReaders: metricReaders(config),
    logRecordProcessors: [],
    textMapPropagator: new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  });
  sdk.start();
  return sdk;
}
