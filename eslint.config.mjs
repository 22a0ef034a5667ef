// Workspace lint config (ESLint flat config, type-checked).
// Module boundaries follow ARCHITECTURE.md: apps never import apps, libraries never import apps,
// and the pure libraries (contracts, agent-loop) import no infrastructure client.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { noTypeImportCycle } from './scripts/lint/no-type-import-cycle.mjs';

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
    // No import circles inside a package (issue 35). `import-x/no-cycle` finds the circles that exist
    // at run time (the TypeScript resolver maps the `.js` specifiers to the `.ts` sources); it skips
    // type-only imports, which `platform/no-type-import-cycle` (scripts/lint/) counts too. Other
    // packages are not followed: nx already forbids circles between projects.
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { 'import-x': importX, platform: { rules: { 'no-type-import-cycle': noTypeImportCycle } } },
    settings: {
      'import-x/extensions': ['.ts', '.tsx'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: '{apps,libs,bench,test,tools,deploy,examples}/*/tsconfig.json',
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'platform/no-type-import-cycle': 'error',
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
    // The api's openapi/ is the machinery under the routes (routes define operations with it); the
    // list of every operation and the document writer sit above both (src/api-operations.ts).
    files: ['apps/api/src/openapi/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@platform/testing', '@platform/testing/*'], message: 'libs/testing is for tests only.' },
            {
              group: ['../routes/*', '../app.js', '../api-operations.js'],
              message: 'openapi/ must not depend on the routes; the routes depend on it.',
            },
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
