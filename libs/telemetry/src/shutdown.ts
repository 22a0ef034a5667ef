import { trace, type TracerProvider } from '@opentelemetry/api';

interface ShutdownCapable {
  shutdown(): Promise<void>;
}

function hasShutdown(value: unknown): value is ShutdownCapable {
  return (
    typeof value === 'object' && value !== null && typeof (value as Partial<ShutdownCapable>).shutdown === 'function'
  );
}

/** The registered SDK provider behind the API's global proxy, if any. */
function registeredProvider(): TracerProvider {
  const provider = trace.getTracerProvider() as TracerProvider & { getDelegate?: () => TracerProvider };
  return typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider;
}

/**
 * Flushes every buffered span to the exporter and shuts the tracer provider down. Await it in the
 * service's graceful shutdown before `process.exit()`, which would otherwise drop the last batch.
 *
 * Never rejects: a shutdown path must go on when the collector is unreachable, so a failed final
 * export (after the exporter's own timeout, `OTEL_EXPORTER_OTLP_TIMEOUT`) becomes a process warning.
 * Safe to call more than once, and a no-op when the register entry did not start the SDK
 * (disabled, or a library test without it). Reaches the SDK only through the OpenTelemetry API's
 * global tracer provider, so this entry never imports the SDK.
 */
export async function shutdownTelemetry(): Promise<void> {
  const provider = registeredProvider();
  if (!hasShutdown(provider)) return;
  try {
    await provider.shutdown();
  } catch (error) {
    process.emitWarning(
      `spans may have been lost at shutdown: ${error instanceof Error ? error.message : String(error)}`,
      { code: 'PLATFORM_TELEMETRY' },
    );
  }
}
