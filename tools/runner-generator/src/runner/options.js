// Options of the runner generator: validation, defaults and the names the templates need.
// Plain JavaScript with JSDoc types (checked by `tsc` with checkJs): Nx loads generators with
// `require`, and without swc-node/ts-node it could not transpile a TypeScript generator on Node 20.
import { getProjects, normalizePath, offsetFromRoot } from '@nx/devkit';

/**
 * Options as given on the command line (see schema.json).
 * @typedef {object} RunnerGeneratorSchema
 * @property {string} name Kebab-case runner name, e.g. `weather-tools`.
 * @property {string} [description] One line: what the runner's tools are for.
 * @property {string} [toolName] Name of the sample tool; default: the name in snake_case.
 * @property {string} [directory] Workspace-relative folder of the app; default `apps/<name>`.
 */

/**
 * Options with defaults applied, plus every derived name the templates use.
 * @typedef {object} NormalizedOptions
 * @property {string} name Project name, package `@platform/<name>`, default service name (`RUNNER_NAME`).
 * @property {string} description
 * @property {string} directory Workspace-relative, forward slashes, no trailing slash.
 * @property {string} offsetFromRoot `../` per level of `directory`, e.g. `../../`.
 * @property {string} toolName
 * @property {string} toolFile File stem of the sample tool, e.g. `weather-tools` for `weather_tools`.
 * @property {string} toolFactory Function that defines the sample tool, e.g. `weatherToolsTool`.
 */

/** Kebab-case: it becomes an Nx project name, an npm package name and a NATS service name at once. */
const RUNNER_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
/** 64 keeps the default tool name (the same characters) within the tool-name limit. */
const MAX_NAME_LENGTH = 64;
/** The protocol's tool-name rule (the OpenAI function-name rule, and a NATS subject token). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks the options and applies defaults. Throws an Error that says what to change.
 * @param {import('@nx/devkit').Tree} tree
 * @param {RunnerGeneratorSchema} schema
 * @returns {NormalizedOptions}
 */
export function normalizeOptions(tree, schema) {
  const name = String(schema.name ?? '').trim();
  if (!RUNNER_NAME.test(name) || name.length > MAX_NAME_LENGTH) {
    throw new Error(
      `Invalid runner name '${name}': use kebab-case (lowercase letters and digits in words joined by single hyphens, starting with a letter, at most ${MAX_NAME_LENGTH} characters), e.g. 'weather-tools'.`,
    );
  }

  const toolName = schema.toolName?.trim() || name.replaceAll('-', '_');
  if (!TOOL_NAME.test(toolName)) {
    throw new Error(
      `Invalid tool name '${toolName}': it must match ^[A-Za-z0-9_-]{1,64}$ (letters, digits, '_' or '-'), e.g. 'get_weather'.`,
    );
  }

  const description = schema.description?.trim() || `Tools of the ${name} runner.`;
  if (/[\r\n]/.test(description)) throw new Error('Invalid description: keep it to one line.');

  const directory = normalizeDirectory(schema.directory ?? `apps/${name}`);
  if (tree.exists(directory)) {
    throw new Error(
      `Cannot create the runner in '${directory}': it already exists. Choose another name or --directory.`,
    );
  }
  const existing = getProjects(tree).get(name);
  if (existing) {
    throw new Error(
      `Cannot create project '${name}': a project with that name already exists at '${existing.root}'. Choose another name.`,
    );
  }

  return {
    name,
    description,
    directory,
    offsetFromRoot: offsetFromRoot(directory),
    toolName,
    toolFile: fileStem(toolName),
    toolFactory: `${identifier(toolName)}Tool`,
  };
}

/**
 * A workspace-relative folder: forward slashes, no `./` prefix or trailing slash, never outside the
 * workspace (the tsconfig `extends` paths are computed from its depth).
 * @param {string} raw
 * @returns {string}
 */
function normalizeDirectory(raw) {
  const directory = normalizePath(raw.trim())
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
  const segments = directory.split('/');
  if (
    !directory ||
    directory.startsWith('/') ||
    /^[A-Za-z]:/.test(directory) ||
    segments.some((s) => s === '..' || s === '.' || s === '')
  ) {
    throw new Error(
      `Invalid directory '${raw}': give a folder inside the workspace, relative to its root, e.g. 'apps/weather-tools'.`,
    );
  }
  return directory;
}

/**
 * Kebab-case file stem from a tool name, as the repo names files (`current_time` → `current-time`);
 * never `index`, which the tools folder uses for its list.
 * @param {string} toolName
 * @returns {string}
 */
function fileStem(toolName) {
  const stem = toolName.toLowerCase().split(/[-_]+/).filter(Boolean).join('-') || 'sample';
  return stem === 'index' ? 'index-tool' : stem;
}

/**
 * camelCase identifier from a tool name: `get_weather` → `getWeather`, `3d-print` → `_3dPrint`.
 * @param {string} toolName
 * @returns {string}
 */
function identifier(toolName) {
  const words = toolName.split(/[-_]+/).filter(Boolean);
  const camel = words
    .map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('');
  const safe = camel || 'sample';
  return /^[0-9]/.test(safe) ? `_${safe}` : safe;
}
