/**
 * The auto-instrumentations every service can run, each with the modules the import-in-the-middle
 * loader hook must intercept for it when the app imports them from ESM. Hooking only the
 * instrumented packages keeps every other module (and tsx-compiled sources) out of its wrapper.
 * Must name every module the instrumentations in instrumentations.ts patch (a unit test checks
 * this). Kept in its own import-free file so the register entry can read it before loading
 * anything it would have to hook.
 */
const INSTRUMENTED_MODULES = {
  http: ['http', 'https'],
  grpc: ['@grpc/grpc-js'],
  pg: ['pg', 'pg-pool'],
  ioredis: ['ioredis'],
  // undici listens on diagnostics_channel: nothing to hook.
  undici: [],
} as const satisfies Record<string, readonly string[]>;

/** Short name of an instrumentation, as `OTEL_NODE_ENABLED_INSTRUMENTATIONS` and `..._DISABLED_...` spell it. */
export type InstrumentationName = keyof typeof INSTRUMENTED_MODULES;

/** Every instrumentation, in the order they are created. */
export const INSTRUMENTATION_NAMES = Object.keys(INSTRUMENTED_MODULES) as InstrumentationName[];

/** The modules to hook for the given instrumentations. */
export function hookedModules(enabled: readonly InstrumentationName[]): string[] {
  return enabled.flatMap((name) => INSTRUMENTED_MODULES[name]);
}
