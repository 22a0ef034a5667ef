import type { z } from 'zod';
import { shutdownTelemetry } from '@platform/telemetry';
import { ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { announceReady } from './ready.js';
import { RuntimeDiagnosticsConfig, startRuntimeDiagnostics } from './runtime-diagnostics.js';
import { GracefulShutdown } from './shutdown.js';

/** What a service's start function hands back: how to stop it, and what to announce when ready. */
interface StartedService {
  stop(): Promise<void>;
  ready: Record<string, unknown>;
}

/** Settings every service's config carries. */
interface CommonSettings {
  LOG_LEVEL: string;
  SHUTDOWN_GRACE_MS: number;
}

export interface RunServiceOptions<S extends z.ZodObject> {
  name: string;
  config: S;
  start(config: z.infer<S>, logger: Logger): Promise<StartedService>;
}

/**
 * A service's main: parse config (a bad variable exits 1 with the variable named), start, stop
 * gracefully on SIGTERM/SIGINT, and announce readiness. A failed start is logged as one JSON
 * line and exits 1 after traces are flushed.
 */
export async function runService<S extends z.ZodObject>(options: RunServiceOptions<S>): Promise<void> {
  let config: z.infer<S> & CommonSettings;
  let diagnostics: z.infer<typeof RuntimeDiagnosticsConfig>;
  try {
    config = loadConfig(options.config) as z.infer<S> & CommonSettings;
    diagnostics = loadConfig(RuntimeDiagnosticsConfig);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${options.name}: ${err.message}\n`);
    process.exit(1);
  }
  const logger = createLogger({ service: options.name, level: config.LOG_LEVEL });
  const shutdown = new GracefulShutdown({ logger, timeoutMs: config.SHUTDOWN_GRACE_MS + 5_000 }).listen();
  try {
    // Event-loop delay and GC pauses, for diagnosing latency (docs/operations.md); off unless asked for.
    const runtime =
      diagnostics.RUNTIME_DIAGNOSTICS_PORT === undefined
        ? undefined
        : await startRuntimeDiagnostics({
            port: diagnostics.RUNTIME_DIAGNOSTICS_PORT,
            host: diagnostics.RUNTIME_DIAGNOSTICS_HOST,
          });
    const service = await options.start(config, logger);
    shutdown.add(`stop ${options.name}`, () => service.stop());
    if (runtime) shutdown.add('stop runtime diagnostics', () => runtime.stop());
    announceReady(logger, runtime ? { ...service.ready, diagnosticsPort: runtime.port } : service.ready);
  } catch (err) {
    logger.fatal({ err }, `${options.name} failed to start: ${(err as Error).message}`);
    await shutdownTelemetry();
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    process.exit(1);
  }
}
