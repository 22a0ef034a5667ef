// Shared Vitest settings for every project. Workspace libraries resolve to their TypeScript
// sources through the "@platform/source" export condition, so tests never need a prior build.
import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const SOURCE_CONDITION = '@platform/source';

export interface PlatformTestOptions {
  /** Files run once per test run (e.g. the private NATS/Postgres/Redis launcher). */
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
      globalSetup: options.globalSetup ?? [],
      testTimeout: options.testTimeoutMs ?? 20_000,
      hookTimeout: Math.max(options.testTimeoutMs ?? 20_000, 60_000),
      pool: 'forks',
      reporters: ['default'],
    },
  });
}
