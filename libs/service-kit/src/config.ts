import { z } from 'zod';
import { ServiceKitError } from './errors.js';

/** Raised at boot when the environment does not satisfy a component's config schema. */
export class ConfigError extends ServiceKitError {
  readonly code = 'CONFIG_INVALID';
  constructor(
    /** One entry per offending variable: its name and what was wrong with it. */
    readonly problems: ReadonlyArray<{ variable: string; message: string }>,
  ) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
  }
}

/**
 * Parses a component's configuration from environment variables, once, at boot.
 * The schema's keys are the variable names, so every error names the variable at fault.
 *
 * @example
 * const Config = z.object({ PORT: port().default(8080), NATS_URL: z.string().url() });
 * const config = loadConfig(Config);
 */
export function loadConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    // An empty variable means "not set": defaults apply instead of failing on "".
    input[key] = value === '' ? undefined : value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => ({
    variable: issue.path.map(String).join('.') || '(environment)',
    message: issue.message,
  }));
  throw new ConfigError(problems);
}

/** Reusable env field parsers. */
export const env = {
  /** A TCP port number; 0 asks the OS for a free port. */
  port: () => z.coerce.number().int().min(0).max(65_535),
  /** A positive integer, e.g. a limit or a duration in milliseconds. */
  positiveInt: () => z.coerce.number().int().positive(),
  /** A non-negative integer. */
  nonNegativeInt: () => z.coerce.number().int().min(0),
  /** A URL string. */
  url: () => z.string().url(),
  /** `true`/`false`/`1`/`0`/`yes`/`no`, case-insensitive. */
  boolean: () =>
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no']))
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  /** A comma-separated list of non-empty strings. */
  list: () =>
    z.string().transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
};
