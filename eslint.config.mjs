// Workspace lint config (ESLint flat config, type-checked).
// Module boundaries follow ARCHITECTURE.md: apps never import apps, libraries never import apps,
// and the pure libraries (contracts, agent-loop) import no infrastructure client.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const infrastructureClients = ['pg', 'pg-*', 'ioredis', '@nats-io/*', '@grpc/*', 'fastify', 'openai'];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/src/gen/**',
      '**/coverage/**',
      '**/.nx/**',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/only-throw-error': 'error',
      // Handlers implement async contracts; an async function without await is fine.
      '@typescript-eslint/require-await': 'off',
      'no-console': 'error',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          banTransitiveDependencies: false,
          depConstraints: [
            {
              sourceTag: 'type:app',
              onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', 'type:adapter', 'type:testing'],
            },
            {
              sourceTag: 'type:lib',
              onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', 'type:adapter', 'type:testing'],
            },
            {
              sourceTag: 'type:adapter',
              onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', 'type:adapter', 'type:testing'],
            },
            {
              sourceTag: 'type:testing',
              onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', 'type:adapter', 'type:testing'],
            },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
            {
              sourceTag: 'type:e2e',
              onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', 'type:adapter', 'type:testing'],
            },
            { sourceTag: 'purity:no-infrastructure', bannedExternalImports: infrastructureClients },
          ],
        },
      ],
    },
  },
  {
    // The web console (React): the rules of hooks, and the browser's console is no log.
    files: ['apps/console/src/**/*.ts', 'apps/console/src/**/*.tsx'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    // Production code never reaches for the test launchers; only tests, test-support and the
    // benchmarks (bench/, whose kit is bench/kit) do.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts', 'tools/*/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/test-support/**', 'libs/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@platform/testing', '@platform/testing/*'], message: 'libs/testing is for tests only.' },
          ],
        },
      ],
    },
  },
  {
    // Tool configuration may reach the workspace's shared config files.
    files: ['**/vitest.config.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/test-support/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // Asymmetric matchers (expect.any, expect.objectContaining) are typed any by design.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
);
