import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_METRIC_EXPORT_INTERVAL_MS, DEFAULT_SCHEDULE_DELAY_MS, readTelemetryConfig } from './config.js';

let appDir: string;
let entry: string;
beforeAll(async () => {
  appDir = await mkdtemp(path.join(os.tmpdir(), 'telemetry-config-'));
  await writeFile(path.join(appDir, 'package.json'), JSON.stringify({ name: '@platform/orchestrator' }));
  await mkdir(path.join(appDir, 'dist'));
  entry = path.join(appDir, 'dist', 'main.js');
});
afterAll(() => rm(appDir, { recursive: true, force: true }));

describe('readTelemetryConfig', () => {
  it('defaults: enabled, no export, short batch delay, service named after the entry package', () => {
    expect(readTelemetryConfig({}, entry)).toEqual({
      disabled: false,
      serviceName: '@platform/orchestrator',
      exportEnabled: false,
      scheduledDelayMillis: DEFAULT_SCHEDULE_DELAY_MS,
      metricsExportEnabled: false,
      metricExportIntervalMillis: DEFAULT_METRIC_EXPORT_INTERVAL_MS,
      instrumentations: ['http', 'grpc', 'pg', 'ioredis', 'undici'],
    });
  });

  it('runs the instrumentations OTEL_NODE_ENABLED_INSTRUMENTATIONS names (all by default), less OTEL_NODE_DISABLED_INSTRUMENTATIONS', () => {
    const instrumentations = (env: Record<string, string>): readonly string[] =>
      readTelemetryConfig(env, entry).instrumentations;
    expect(instrumentations({ OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg, ioredis' })).toEqual([
      'http',
      'grpc',
      'undici',
    ]);
    expect(instrumentations({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'undici,http,grpc' })).toEqual([
      'http',
      'grpc',
      'undici',
    ]);
    expect(
      instrumentations({
        OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,grpc,pg',
        OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg',
      }),
    ).toEqual(['http', 'grpc']);
    expect(
      instrumentations({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: ' ', OTEL_NODE_DISABLED_INSTRUMENTATIONS: ',' }),
    ).toEqual(['http', 'grpc', 'pg', 'ioredis', 'undici']);
    expect(instrumentations({ OTEL_SDK_DISABLED: 'true', OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http' })).toEqual([]);
  });

  it('refuses an instrumentation name it does not know, naming the variable and the known names', () => {
    expect(() => readTelemetryConfig({ OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg,redis' }, entry)).toThrow(
      "OTEL_NODE_DISABLED_INSTRUMENTATIONS: unknown instrumentation 'redis' (known: http, grpc, pg, ioredis, undici)",
    );
    expect(() => readTelemetryConfig({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'HTTP' }, entry)).toThrow(
      /OTEL_NODE_ENABLED_INSTRUMENTATIONS: unknown instrumentation 'HTTP'/,
    );
  });

  it('prefers OTEL_SERVICE_NAME, then PLATFORM_SERVICE_NAME', () => {
    expect(
      readTelemetryConfig({ OTEL_SERVICE_NAME: 'otel-name', PLATFORM_SERVICE_NAME: 'platform-name' }, entry)
        .serviceName,
    ).toBe('otel-name');
    expect(readTelemetryConfig({ PLATFORM_SERVICE_NAME: 'platform-name' }, entry).serviceName).toBe('platform-name');
  });

  it('leaves the name to OTEL_RESOURCE_ATTRIBUTES when it sets service.name', () => {
    expect(
      readTelemetryConfig({ OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=dev, service.name=from-attrs' }, entry)
        .serviceName,
    ).toBeUndefined();
  });

  it('exports when either OTLP endpoint variable is set', () => {
    expect(readTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, entry).exportEnabled).toBe(
      true,
    );
    expect(
      readTelemetryConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, entry)
        .exportEnabled,
    ).toBe(true);
    expect(readTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, entry).exportEnabled).toBe(false);
  });

  it('reads OTEL_BSP_SCHEDULE_DELAY and ignores invalid values', () => {
    expect(readTelemetryConfig({ OTEL_BSP_SCHEDULE_DELAY: '2000' }, entry).scheduledDelayMillis).toBe(2000);
    expect(readTelemetryConfig({ OTEL_BSP_SCHEDULE_DELAY: 'soon' }, entry).scheduledDelayMillis).toBe(
      DEFAULT_SCHEDULE_DELAY_MS,
    );
    expect(readTelemetryConfig({ OTEL_BSP_SCHEDULE_DELAY: '0' }, entry).scheduledDelayMillis).toBe(
      DEFAULT_SCHEDULE_DELAY_MS,
    );
  });

  it('exports metrics to the OTLP endpoint (or its metrics endpoint) unless OTEL_METRICS_EXPORTER is none, at OTEL_METRIC_EXPORT_INTERVAL', () => {
    expect(readTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, entry)).toMatchObject({
      metricsExportEnabled: true,
      metricExportIntervalMillis: 60_000,
    });
    expect(
      readTelemetryConfig({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://collector:4318/v1/metrics' }, entry),
    ).toMatchObject({ metricsExportEnabled: true, exportEnabled: false });
    expect(
      readTelemetryConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, entry)
        .metricsExportEnabled,
    ).toBe(false);
    expect(
      readTelemetryConfig(
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_METRICS_EXPORTER: 'NONE' },
        entry,
      ),
    ).toMatchObject({ metricsExportEnabled: false, exportEnabled: true });
    expect(readTelemetryConfig({ OTEL_METRIC_EXPORT_INTERVAL: '500' }, entry).metricExportIntervalMillis).toBe(500);
    expect(readTelemetryConfig({ OTEL_METRIC_EXPORT_INTERVAL: 'often' }, entry).metricExportIntervalMillis).toBe(
      60_000,
    );
  });

  it('serves metrics for Prometheus with OTEL_METRICS_EXPORTER=prometheus, on port 9464 unless OTEL_EXPORTER_PROMETHEUS_PORT says otherwise', () => {
    expect(readTelemetryConfig({ OTEL_METRICS_EXPORTER: 'prometheus' }, entry)).toMatchObject({
      metricsExportEnabled: true,
      prometheus: { host: undefined, port: 9464 },
    });
    expect(
      readTelemetryConfig(
        {
          OTEL_METRICS_EXPORTER: 'Prometheus',
          OTEL_EXPORTER_PROMETHEUS_PORT: '9100',
          OTEL_EXPORTER_PROMETHEUS_HOST: '0.0.0.0',
        },
        entry,
      ).prometheus,
    ).toEqual({ host: '0.0.0.0', port: 9100 });
    expect(
      readTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, entry).prometheus,
    ).toBeUndefined();
    expect(() =>
      readTelemetryConfig({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: 'metrics' }, entry),
    ).toThrow(/OTEL_EXPORTER_PROMETHEUS_PORT/);
  });

  it('honours OTEL_SDK_DISABLED=true case-insensitively', () => {
    expect(readTelemetryConfig({ OTEL_SDK_DISABLED: 'TRUE' }, entry).disabled).toBe(true);
    expect(readTelemetryConfig({ OTEL_SDK_DISABLED: 'false' }, entry).disabled).toBe(false);
  });
});
