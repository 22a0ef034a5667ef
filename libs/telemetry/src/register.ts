// `node --import @platform/telemetry/register dist/main.js`: starts tracing before the app's first import.
//
// Static imports are all evaluated before this module's body runs, so the only static imports are
// node:module and two dependency-free local files. Everything that loads the instrumentations or
// the SDK is imported dynamically, after the loader hook is registered.
import { register } from 'node:module';
import { readTelemetryConfig } from './config.js';
import { hookedModules } from './hooked-modules.js';

const config = readTelemetryConfig();

if (!config.disabled) {
  try {
    // Modules the app imports with `import` bypass require-in-the-middle; import-in-the-middle's
    // loader hook is what lets the instrumentations patch them. This is the off-thread
    // module.register loader (the one the OpenTelemetry packages ship as hook.mjs; Node 24 runs it
    // as Node 20 did), and it only wraps the instrumented packages.
    register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
      data: { include: hookedModules(config.instrumentations) },
    });
    const [{ startSdk }, { installExitHooks }] = await Promise.all([
      import('./start-sdk.js'),
      import('./exit-hooks.js'),
    ]);
    const sdk = startSdk(config);
    let stopping: Promise<void> | undefined;
    installExitHooks(() => (stopping ??= sdk.shutdown()));
  } catch (error) {
    // Telemetry must never keep a service from starting.
    process.emitWarning(`tracing is disabled: ${error instanceof Error ? error.message : String(error)}`, {
      code: 'PLATFORM_TELEMETRY',
    });
  }
}
