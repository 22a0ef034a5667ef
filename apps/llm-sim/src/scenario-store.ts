import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScenarioSchema, type Scenario, type ScenarioInput } from './scenario-schema.js';
import { NamedError } from '@platform/contracts';

/**
 * The app's shipped `scenarios/` folder. It sits next to both `src/` and `dist/`, so resolving
 * `../scenarios/` from this module works whether it runs from TypeScript or from the build.
 */
export const DEFAULT_SCENARIOS_DIR = fileURLToPath(new URL('../scenarios/', import.meta.url));

/** A scenario source (file or programmatic input) that could not be loaded; fails startup. */
export class ScenarioLoadError extends NamedError {
  readonly code = 'SCENARIO_INVALID';
  constructor(
    /** The file (or `<programmatic:name>`) at fault. */
    readonly source: string,
    /** Human-readable problems, each prefixed with the field path when there is one. */
    readonly problems: readonly string[],
  ) {
    super(`invalid scenario ${source}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

function validate(source: string, input: unknown): Scenario {
  const result = ScenarioSchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  throw new ScenarioLoadError(source, problems);
}

/** Parses and validates one scenario file's text; the file name must match the scenario's `name`. */
function parseScenarioFile(file: string, text: string): Scenario {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ScenarioLoadError(file, [`not valid JSON: ${(error as Error).message}`]);
  }
  const scenario = validate(file, json);
  const expected = basename(file, '.json');
  // Name and file name must agree so `[scenario:x]` always leads a reader to `x.json`.
  if (scenario.name !== expected) {
    throw new ScenarioLoadError(file, [`name: "${scenario.name}" must match the file name "${expected}"`]);
  }
  return scenario;
}

/**
 * Loads every `*.json` scenario in `dir` (synchronously: this runs once, at startup).
 * Throws {@link ScenarioLoadError} naming the first bad file.
 */
export function loadScenarioDirectory(dir: string): Map<string, Scenario> {
  let entries: string[];
  try {
    entries = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch (error) {
    throw new ScenarioLoadError(dir, [`cannot read scenarios directory: ${(error as Error).message}`]);
  }
  const scenarios = new Map<string, Scenario>();
  for (const entry of entries) {
    const file = join(dir, entry);
    const scenario = parseScenarioFile(file, readFileSync(file, 'utf8'));
    scenarios.set(scenario.name, scenario);
  }
  return scenarios;
}

/** Validates programmatic scenarios (e.g. from tests) the same way files are validated. */
export function validateScenarios(inputs: readonly ScenarioInput[]): Scenario[] {
  return inputs.map((input) => validate(`<programmatic:${String(input.name)}>`, input));
}
