import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { repoRoot } from './render.js';

/** An app's environment schema, as its `src/config.ts` exports it (the one its main.ts loads). */
export interface AppConfigSchema {
  app: string;
  /** Where the app lives (apps/<app> or examples/<app>). */
  dir: string;
  /** The schema for a given environment (mcp-bridge builds its schema from the environment). */
  schemaFor(env: Record<string, string>): z.ZodType;
  /** Every variable the schema reads. */
  variables: string[];
  /** The variables without a default that must be set (a field that rejects `undefined`). */
  required: string[];
}

/** apps/<app> or examples/<app> (the image name agent-platform/<app> names the same folder). */
function appDir(app: string): string {
  for (const parent of ['apps', 'examples']) {
    const dir = path.join(parent, app);
    if (existsSync(path.join(repoRoot, dir, 'src/config.ts'))) return dir;
  }
  throw new Error(`no app '${app}' with a src/config.ts under apps/ or examples/`);
}

type ObjectSchema = z.ZodObject<Record<string, z.ZodType>>;

const isObjectSchema = (value: unknown): value is ObjectSchema => value instanceof z.ZodObject;

/**
 * Reads the app's config schema from its own module, never from a copy: the exported `z.object`
 * whose name ends in `Config` (e.g. `OrchestratorConfig`), or an exported function whose name
 * ends in `ConfigSchema` that builds one from the environment (mcp-bridge's `bridgeConfigSchema`).
 * The module is loaded by path: apps are not libraries, and this test reads them, never links them.
 */
export async function loadAppConfigSchema(app: string): Promise<AppConfigSchema> {
  const dir = appDir(app);
  const moduleUrl = pathToFileURL(path.join(repoRoot, dir, 'src/config.ts')).href;
  const exports = (await import(moduleUrl)) as Record<string, unknown>;
  const objects = Object.entries(exports).filter(
    ([name, value]) => /Config(Schema)?$/.test(name) && isObjectSchema(value),
  );
  const builders = Object.entries(exports).filter(
    ([name, value]) => /ConfigSchema$/.test(name) && typeof value === 'function',
  );
  let schemaFor: (env: Record<string, string>) => z.ZodType;
  if (objects.length === 1) {
    const schema = objects[0]![1] as ObjectSchema;
    schemaFor = () => schema;
  } else if (objects.length === 0 && builders.length === 1) {
    const build = builders[0]![1] as (env: Record<string, string>) => z.ZodType;
    schemaFor = (env) => build(env);
  } else {
    throw new Error(
      `${dir}/src/config.ts must export exactly one config schema (a z.object named *Config, or a *ConfigSchema builder); found ${[...objects, ...builders].map(([n]) => n).join(', ') || 'none'}`,
    );
  }
  const shape = schemaFor({});
  if (!isObjectSchema(shape)) throw new Error(`${dir}/src/config.ts: the config schema is not a z.object`);
  const fields = Object.entries(shape.shape);
  return {
    app,
    dir,
    schemaFor,
    variables: fields.map(([name]) => name),
    required: fields.filter(([, field]) => !field.safeParse(undefined).success).map(([name]) => name),
  };
}
