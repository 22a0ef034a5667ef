// Reads the register entry's settings from the standard OTEL_* environment variables.
// Kept free of SDK imports so it is cheap to load and easy to unit test.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { INSTRUMENTATION_NAMES, type InstrumentationName } from './hooked-modules.js';

/** Batch export delay when OTEL_BSP_SCHEDULE_DELAY is unset: short, so spans of short-lived processes and tests arrive quickly. */
export const DEFAULT_SCHEDULE_DELAY_MS = 500;

/** Metric export interval when OTEL_METRIC_EXPORT_INTERVAL is unset (the specification's default). */
export const DEFAULT_METRIC_EXPORT_INTERVAL_MS = 60_000;

/** Settings the register entry starts the SDK with. */
export interface TelemetryConfig {
  /** `OTEL_SDK_DISABLED=true`: no loader hook, no instrumentation, no SDK. */
  readonly disabled: boolean;
  /** Explicit service name, or undefined when `OTEL_RESOURCE_ATTRIBUTES` already carries `service.name`. */
  readonly serviceName: string | undefined;
  /** Whether an OTLP endpoint is configured; without one spans are recorded but dropped. */
  readonly exportEnabled: boolean;
  readonly scheduledDelayMillis: number;
  /**
   * Whether metrics are exported: an OTLP endpoint for them (`OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`
   * or `OTEL_EXPORTER_OTLP_ENDPOINT`) and `OTEL_METRICS_EXPORTER` not `none`. Without it no meter
   * provider is installed and recording costs nothing.
   */
  readonly metricsExportEnabled: boolean;
  readonly metricExportIntervalMillis: number;
  /**
   * `OTEL_METRICS_EXPORTER=prometheus`: metrics are served for scraping instead of pushed, on
   * `OTEL_EXPORTER_PROMETHEUS_HOST` (default all interfaces) and `OTEL_EXPORTER_PROMETHEUS_PORT`
   * (default 9464), path `/metrics`. Undefined otherwise.
   */
  readonly prometheus: { readonly host: string | undefined; readonly port: number } | undefined;
  /**
   * The auto-instrumentations to run: all of them, or those `OTEL_NODE_ENABLED_INSTRUMENTATIONS`
   * names, less those `OTEL_NODE_DISABLED_INSTRUMENTATIONS` names (comma-separated short names:
   * http, grpc, pg, ioredis, undici). Empty when tracing is disabled.
   */
  readonly instrumentations: readonly InstrumentationName[];
}

/** Port of the Prometheus endpoint when OTEL_EXPORTER_PROMETHEUS_PORT is unset (the exporter's registered default). */
const DEFAULT_PROMETHEUS_PORT = 9464;
/** Path Prometheus scrapes. */
export const PROMETHEUS_METRICS_PATH = '/metrics';

type Env = Readonly<Record<string, string | undefined>>;

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function positiveNumber(value: string | undefined): number | undefined {
  const parsed = Number(nonEmpty(value));
  return Number.isFinite(parsed) && parsed > 0 ? parsed : undefined;
}

/** Name of the nearest package.json at or above `startDir`, i.e. the service's own package. */
function nearestPackageName(startDir: string): string | undefined {
  let dir = path.resolve(startDir);
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (typeof manifest.name === 'string' && manifest.name) return manifest.name;
    } catch {
      // No (readable) manifest here: keep walking up.
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function hasResourceServiceName(env: Env): boolean {
  return (env['OTEL_RESOURCE_ATTRIBUTES'] ?? '')
    .split(',')
    .some((pair) => pair.split('=')[0]?.trim() === 'service.name');
}

/**
 * Resolves the service name: `OTEL_SERVICE_NAME`, else `service.name` in `OTEL_RESOURCE_ATTRIBUTES`
 * (left to the SDK's env detector), else `PLATFORM_SERVICE_NAME`, else the entry script's package name.
 */
function resolveServiceName(env: Env, entryScript: string | undefined): string | undefined {
  const explicit = nonEmpty(env['OTEL_SERVICE_NAME']);
  if (explicit) return explicit;
  if (hasResourceServiceName(env)) return undefined;
  const platform = nonEmpty(env['PLATFORM_SERVICE_NAME']);
  if (platform) return platform;
  const fromPackage = nearestPackageName(entryScript ? path.dirname(entryScript) : process.cwd());
  return fromPackage ?? 'unknown_service:node';
}

function isInstrumentationName(name: string): name is InstrumentationName {
  return (INSTRUMENTATION_NAMES as readonly string[]).includes(name);
}

/** A comma-separated list of instrumentation names, or undefined when the variable is unset or blank; throws on a name it does not know. */
function instrumentationList(env: Env, variable: string): InstrumentationName[] | undefined {
  const raw = nonEmpty(env[variable]);
  if (raw === undefined) return undefined;
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !isInstrumentationName(name));
  if (unknown.length > 0)
    throw new Error(
      `${variable}: unknown instrumentation '${unknown.join("', '")}' (known: ${INSTRUMENTATION_NAMES.join(', ')})`,
    );
  return names.filter(isInstrumentationName);
}

function enabledInstrumentations(env: Env): InstrumentationName[] {
  const enabled = instrumentationList(env, 'OTEL_NODE_ENABLED_INSTRUMENTATIONS') ?? INSTRUMENTATION_NAMES;
  const disabled = instrumentationList(env, 'OTEL_NODE_DISABLED_INSTRUMENTATIONS') ?? [];
  return INSTRUMENTATION_NAMES.filter((name) => enabled.includes(name) && !disabled.includes(name));
}

/** Reads the telemetry settings; `entryScript` is the app's main module (process.argv[1]). */
export function readTelemetryConfig(
  env: Env = process.env,
  entryScript: string | undefined = process.argv[1],
): TelemetryConfig {
  const disabled = nonEmpty(env['OTEL_SDK_DISABLED'])?.toLowerCase() === 'true';
  const metricsExporter = nonEmpty(env['OTEL_METRICS_EXPORTER'])?.toLowerCase();
  const prometheusPort = Number(nonEmpty(env['OTEL_EXPORTER_PROMETHEUS_PORT']) ?? DEFAULT_PROMETHEUS_PORT);
  if (
    metricsExporter === 'prometheus' &&
    !(Number.isInteger(prometheusPort) && prometheusPort >= 0 && prometheusPort <= 65_535)
  ) {
    throw new Error(
      `OTEL_EXPORTER_PROMETHEUS_PORT: must be a port number (0-65535), got '${env['OTEL_EXPORTER_PROMETHEUS_PORT']}'`,
    );
  }
  return {
    disabled,
    serviceName: disabled ? undefined : resolveServiceName(env, entryScript),
    exportEnabled: Boolean(
      nonEmpty(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) ?? nonEmpty(env['OTEL_EXPORTER_OTLP_ENDPOINT']),
    ),
    scheduledDelayMillis: positiveNumber(env['OTEL_BSP_SCHEDULE_DELAY']) ?? DEFAULT_SCHEDULE_DELAY_MS,
    metricsExportEnabled:
      metricsExporter === 'prometheus' ||
      (metricsExporter !== 'none' &&
        Boolean(nonEmpty(env['OTEL_EXPORTER_OTLP_METRICS_ENDPOINT']) ?? nonEmpty(env['OTEL_EXPORTER_OTLP_ENDPOINT']))),
    metricExportIntervalMillis: positiveNumber(env['OTEL_METRIC_EXPORT_INTERVAL']) ?? DEFAULT_METRIC_EXPORT_INTERVAL_MS,
    prometheus:
      metricsExporter === 'prometheus'
        ? { host: nonEmpty(env['OTEL_EXPORTER_PROMETHEUS_HOST']), port: prometheusPort }
        : undefined,
    instrumentations: disabled ? [] : enabledInstrumentations(env),
  };
}
