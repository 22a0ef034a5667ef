export const DAY_MS = 24 * 60 * 60_000;

/** The UTC day of a moment as YYYY-MM-DD (token budgets and usage are counted per UTC day). */
export function utcDay(at: Date | number = Date.now()): string {
  return new Date(at).toISOString().slice(0, 10);
}
