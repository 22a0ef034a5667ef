import { PLATFORM_APPS, startPlatform, type PlatformApp, type ServiceProcessOptions } from '@platform/testing';
import { describe, expect, it, vi } from 'vitest';
import { loadAppConfigSchema } from './app-config-schemas.js';

/**
 * The local launcher (libs/testing startPlatform, which `npm run platform` and every e2e suite use)
 * is held to the same schemas as the manifests: its process starter is replaced by one that only
 * records the environment each app would get, so no process runs.
 */
const started = vi.hoisted(() => new Map<string, Record<string, string | undefined>>());
vi.mock('../../../libs/testing/src/service-process.ts', async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  startServiceProcess: async (options: ServiceProcessOptions) => {
    started.set(options.app, options.env);
    return {
      app: options.app,
      pid: undefined,
      ready: { msg: 'ready' },
      process: undefined as never,
      stop: async () => undefined,
      kill: async () => undefined,
    };
  },
}));

describe("the local launcher sets what each app's config schema requires", () => {
  it('starts every platform app with an environment its schema accepts', async () => {
    const platform = await startPlatform({
      natsUrl: 'nats://127.0.0.1:4222',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/platform',
      redisUrl: 'redis://127.0.0.1:6379',
      jwtSecret: 'a-local-hs256-secret-of-at-least-32-chars',
    });
    await platform.stop();
    expect([...started.keys()].sort()).toEqual([...PLATFORM_APPS].sort());
    const failures: string[] = [];
    for (const app of PLATFORM_APPS as readonly PlatformApp[]) {
      const schema = await loadAppConfigSchema(app);
      const env = Object.fromEntries(
        Object.entries(started.get(app)!).filter((entry): entry is [string, string] => entry[1] !== undefined),
      );
      failures.push(
        ...schema.required
          .filter((name) => env[name] === undefined)
          .map((name) => `${app}: the launcher does not set ${name}, which ${schema.dir}/src/config.ts requires`),
      );
      const result = schema.schemaFor(env).safeParse(env);
      if (!result.success)
        failures.push(
          ...result.error.issues.map((issue) => `${app}: ${issue.path.join('.') || '(config)'}: ${issue.message}`),
        );
    }
    expect(failures).toEqual([]);
  });
});
