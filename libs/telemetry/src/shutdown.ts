import { trace, type TracerProvider } from '@opentelemetry/api';

interface ShutdownCapable {
  shutdown(): Promise<void>;
}

function hasShutdown(value: unknown): value is ShutdownCapable {
  return typeof value === 'object' && value !== null && typeof (value as Partial<ShutdownCapable>).shutdown === 'function';
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
 * Safe to call more than once, and a no-op when the register entry did not start the SDK
 * (disabled, or a library test without it). Reaches the SDK only through the OpenTelemetry API's
 * global tracer provider, so this entry never imports the SDK.
 */
export async function shutdownTelemetry(): Promise<void> {
  const provider = registeredProvider();
  if (hasShutdown(provider)) await provider.shutdown();
}
