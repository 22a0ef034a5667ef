// `node --import @platform/telemetry/register dist/main.js`: starts tracing before the app's first import.
// Only node: builtins are imported statically. Everything that touches the instrumented packages is
// imported dynamically *after* the loader hook is registered, because static imports are all
// evaluated before this module's body runs.
import { register } from 'node:module';
import { readTelemetryConfig } from './config.js';
import { HOOKED_MODULES } from './hooked-modules.js';

const config = readTelemetryConfig();

if (!config.disabled) {
  try {
    // ESM imports bypass require-in-the-middle; import-in-the-middle's loader hook lets the
    // instrumentations patch modules the app imports with `import`. Node 20 has no in-thread
    // module.registerHooks that iitm supports, so this is the off-thread module.register loader.
    register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: [...HOOKED_MODULES] } });
    const [{ startSdk }, { installExitHooks }] = await Promise.all([import('./start-sdk.js'), import('./exit-hooks.js')]);
    const sdk = startSdk(config);
    let stopping: Promise<void> | undefined;
    installExitHooks(() => (stopping ??= sdk.shutdown()));
  } catch (error) {
    // Telemetry must never keep a service from starting.
    process.emitWarning(`tracing is disabled: ${error instanceof Error ? error.message : String(error)}`, { code: 'PLATFORM_TELEMETRY' });
  }
}
