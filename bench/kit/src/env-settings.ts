// Benchmark settings read from the environment, checked once (a typo fails the run, never
// silently measures something else).

/** A positive integer from `name` (non-negative with `min` 0), or `fallback` when unset or empty. */
export function intEnv(name: string, fallback: number, min: 0 | 1 = 1): number {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be a ${min ? 'positive' : 'non-negative'} integer (got '${raw}')`);
  return value;
}

/** A comma-separated list of non-negative integers from `name` (e.g. `0,300`), or `fallback`. */
export function intListEnv(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const values = raw.split(',').map((v) => Number(v.trim()));
  if (values.some((v) => !Number.isInteger(v) || v < 0))
    throw new Error(`${name} must be a comma-separated list of non-negative integers (got '${raw}')`);
  return values;
}
