import { defineConfig } from 'vitest/config';

// Unit tests of the console's own logic (no browser: the browser tests are test/console).
export default defineConfig({
  esbuild: { jsx: 'automatic' },
  test: { include: ['src/**/*.test.ts'], environment: 'node' },
});
