// Shared Vitest settings for every project. Workspace libraries resolve to their TypeScript
// sources through the "@platform/source" export condition, so tests never need a prior build.
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const SOURCE_CONDITION = '@platform/source';
const sharedInfraSetup = fileURLToPath(new URL('./libs/testing/src/global-setup.ts', import.meta.url));
const withoutPgvectorSetup = fileURLToPath(
  new URL('./libs/testing/src/global-setup-without-pgvector.ts', import.meta.url),
);

export interface PlatformTestOptions {
  /**
   * Start private NATS (JetStream), PostgreSQL and Redis servers once per test run, shared by all
   * suites (see libs/testing). Suites reach them through `@platform/testing/vitest`.
   */
  sharedInfra?: boolean;
  /**
   * Also start a PostgreSQL cluster on which pgvector is not installed (hidden even when the machine
   * has it), for `createSuiteDatabase(label, { pgvector: false })` and `pgvectorModes()`.
   */
  postgresWithoutPgvector?: boolean;
  /** Further files run once per test run. */
  globalSetup?: string[];
  /** Per-test timeout; suites that boot real processes need more than Vitest's 5 s default. */
  testTimeoutMs?: number;
  /** Glob(s) of test files, relative to the project root. */
  include?: string[];
}

export function platformTestConfig(options: PlatformTestOptions = {}): ViteUserConfig {
  return defineConfig({
    resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
    ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] } },
    test: {
      include: options.include ?? ['src/**/*.test.ts'],
      environment: 'node',
      globalSetup: [
        ...(options.sharedInfra ? [sharedInfraSetup] : []),
        ...(options.postgresWithoutPgvector ? [withoutPgvectorSetup] : []),
        ...(options.globalSetup ?? []),
      ],
      testTimeout: options.testTimeoutMs ?? 20_000,
      hookTimeout: Math.max(options.testTimeoutMs ?? 20_000, 60_000),
      pool: 'forks',
      reporters: ['default'],
    },
  });
}
