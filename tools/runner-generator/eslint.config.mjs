// Lint config of this project: the workspace config, with its TypeScript rules applied to the
// generator's JavaScript as well (the workspace config sets up type information for *.ts only).
// ESLint 9 reads the config from the working directory, which is this folder for
// `nx run runner-generator:lint`.
import { defineConfig } from 'eslint/config';
import workspace from '../../eslint.config.mjs';

/** The workspace block with the type-checked rules and module boundaries, reused so the two stay in sync. */
const typescriptBlock = workspace.find((block) => block.files?.includes('**/*.ts') && block.plugins?.['@nx']);
if (!typescriptBlock) throw new Error('eslint.config.mjs: the workspace config no longer has its **/*.ts block');

export default defineConfig(...workspace, {
  ...typescriptBlock,
  files: ['**/*.js'],
  languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  rules: {
    ...typescriptBlock.rules,
    // TypeScript (checkJs) already reports undefined names, and knows Node's globals.
    'no-undef': 'off',
  },
});
