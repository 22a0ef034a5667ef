// `npx nx g @platform/runner-generator:runner <name>`: a new tool runner app, shaped like
// apps/tool-runner but with one sample tool, and its row in docs/runners.md.
import { fileURLToPath } from 'node:url';
import { formatFiles, generateFiles, logger, writeJson } from '@nx/devkit';
import { normalizeOptions } from './options.js';
import { addRunnerEntry } from './runners-doc.js';

/** The app's TypeScript and Markdown templates (`*.template`, rendered with EJS). */
const TEMPLATES = fileURLToPath(new URL('./files', import.meta.url));

/**
 * A single-quoted TypeScript string literal, so a description with quotes or backslashes still
 * compiles.
 * @param {string} text
 * @returns {string}
 */
function tsString(text) {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/**
 * Writes the JSON files. They are written as data rather than templates so they are always valid
 * JSON; `formatFiles` then gives them the workspace's Prettier formatting like every other file.
 * @param {import('@nx/devkit').Tree} tree
 * @param {import('./options.js').NormalizedOptions} o
 */
function writeJsonFiles(tree, o) {
  writeJson(tree, `${o.directory}/package.json`, {
    name: `@platform/${o.name}`,
    version: '0.1.0',
    private: true,
    description: o.description,
    type: 'module',
    main: './dist/main.js',
  });
  writeJson(tree, `${o.directory}/project.json`, {
    name: o.name,
    $schema: `${o.offsetFromRoot}node_modules/nx/schemas/project-schema.json`,
    sourceRoot: `${o.directory}/src`,
    projectType: 'application',
    tags: ['type:app', `scope:${o.name}`],
    // Every service is started with `--import @platform/telemetry/register`, which no source imports.
    implicitDependencies: ['telemetry'],
    // Empty targets: build, typecheck, lint and test come from nx.json targetDefaults.
    targets: { build: {}, typecheck: {}, lint: {}, test: {} },
  });
  writeJson(tree, `${o.directory}/tsconfig.json`, {
    extends: `${o.offsetFromRoot}tsconfig.base.json`,
    compilerOptions: { noEmit: true },
    include: ['src/**/*.ts', 'vitest.config.ts'],
  });
  writeJson(tree, `${o.directory}/tsconfig.build.json`, {
    extends: `${o.offsetFromRoot}tsconfig.base.json`,
    compilerOptions: {
      rootDir: 'src',
      outDir: 'dist',
      // The build compiles against the libraries' built output, not their sources.
      customConditions: [],
      declaration: false,
      tsBuildInfoFile: 'dist/.tsbuildinfo',
    },
    include: ['src/**/*.ts'],
    exclude: ['src/**/*.test.ts', 'src/**/test-support/**'],
  });
}

/**
 * Generates a tool runner app. Refuses an invalid name or tool name, an existing directory and a
 * taken project name, before writing anything.
 * @param {import('@nx/devkit').Tree} tree
 * @param {import('./options.js').RunnerGeneratorSchema} schema
 * @returns {Promise<import('@nx/devkit').GeneratorCallback>}
 */
export default async function runnerGenerator(tree, schema) {
  const options = normalizeOptions(tree, schema);
  generateFiles(tree, TEMPLATES, options.directory, { ...options, descriptionLiteral: tsString(options.description) });
  writeJsonFiles(tree, options);
  const entry = addRunnerEntry(tree, options);
  if (entry === 'already listed') logger.warn(`docs/runners.md already lists ${options.directory}; left it unchanged.`);
  // The workspace's Prettier (.prettierrc.json) over everything written: the app, and the table in
  // docs/runners.md, whose columns Prettier pads, so `workspace-checks:lint` passes on the result.
  await formatFiles(tree);

  // Runs after the files are written (never on --dry-run).
  return () => {
    logger.info(
      [
        `Created ${options.directory}. Next:`,
        `  node_modules/.bin/vitest run --root ${options.directory}`,
        `  npx nx run ${options.name}:build`,
        `  NATS_URL=nats://127.0.0.1:4222 node --import @platform/telemetry/register ${options.directory}/dist/main.js`,
        'Walk-through: docs/tool-runners.md',
      ].join('\n'),
    );
  };
}
