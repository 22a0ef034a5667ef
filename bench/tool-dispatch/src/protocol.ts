// What the bench process and the runner process agree on, and the OpenTelemetry probe both run.
import { isSpanContextValid, trace } from '@opentelemetry/api';

/** The no-op tool the runner serves through serveRunner. */
export const NOOP_TOOL = 'noop';
/** The bare subscription the runner answers with the request payload, outside the tool SDK. */
export const ECHO_SUBJECT = 'bench.echo';
/** The runner answers it with its `process.cpuUsage()` (JSON), so CPU per call is known for both sides. */
export const CPU_SUBJECT = 'bench.cpu';
/** Prefix of the one stdout line the runner prints once both subscriptions are registered. */
export const READY_PREFIX = 'bench-runner ready ';

/** The runner's ready line (JSON after READY_PREFIX). */
export interface RunnerReady {
  pid: number;
  node: string;
  runnerId: string;
  tracing: boolean;
  libraries: string;
}

/** Which build of the platform libraries this process runs: TypeScript sources (through tsx) or dist. */
export function libraryBuild(): string {
  const resolved = import.meta.resolve('@platform/tool-sdk');
  return resolved.endsWith('/src/index.ts')
    ? 'TypeScript sources via tsx'
    : resolved.includes('/dist/')
      ? 'built dist/'
      : resolved;
}

/** Node flags that start the platform's OpenTelemetry SDK before the entry module (as services do). */
export const TELEMETRY_IMPORT = ['--import', '@platform/telemetry/register'] as const;

/**
 * True when an OpenTelemetry SDK is registered in this process. Without one the API hands out
 * no-op spans with an all-zero (invalid) span context, so a probe span tells the two apart.
 */
export function tracingActive(): boolean {
  const span = trace.getTracer('bench-tool-dispatch').startSpan('probe');
  const active = isSpanContextValid(span.spanContext());
  span.end();
  return active;
}

/**
 * The environment for a process of this benchmark: never an OTLP endpoint (spans, if recorded, are
 * dropped, so the figures show instrumentation cost without export), and the SDK not disabled.
 */
export function benchEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (
      value === undefined ||
      key === 'OTEL_EXPORTER_OTLP_ENDPOINT' ||
      key === 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' ||
      key === 'OTEL_SDK_DISABLED'
    )
      continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}
