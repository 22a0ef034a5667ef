/**
 * Modules the import-in-the-middle loader hook intercepts when the app imports them from ESM.
 * Limiting the hook to the instrumented packages keeps every other module (and tsx-compiled
 * sources) out of its wrapper. Must name every module the instrumentations in
 * instrumentations.ts patch (a unit test checks this). Kept in its own import-free file so the
 * register entry can read it before loading anything it would have to hook.
 */
export const HOOKED_MODULES: readonly string[] = ['http', 'https', '@grpc/grpc-js', 'pg', 'pg-pool', 'ioredis'];
