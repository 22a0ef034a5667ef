import { z } from 'zod';
import type { RunnerDeclaration } from './model.js';

const Token = z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, "_" or "-"');

/** A runners file: `[{"name": "weather-tools", "tools": ["get_forecast"], "user": "weather"}]`. */
const RunnersFile = z.array(
  z.strictObject({
    name: Token,
    user: Token.optional(),
    tools: z.array(Token).min(1, 'a runner serves at least one tool'),
    description: z.string().optional(),
  }),
);

/** Parses a runners file's text; the error names the entry and field at fault. */
export function parseRunnersFile(text: string, source: string): RunnerDeclaration[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not JSON: ${(err as Error).message}`);
  }
  const parsed = RunnersFile.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `${source}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data.map((r) => ({
    name: r.name,
    tools: r.tools,
    ...(r.user ? { user: r.user } : {}),
    ...(r.description ? { description: r.description } : {}),
  }));
}
