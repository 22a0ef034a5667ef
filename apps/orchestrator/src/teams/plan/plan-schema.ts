import { z } from 'zod';

/** A subtask id: short and plain, as it appears in `{key}` templates, Mermaid node names and child-run call ids. */
const SubtaskId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"');

/** One subtask of a plan, as the planner model writes it (seed 003's fields). */
export const Subtask = z
  .object({
    id: SubtaskId,
    description: z.string().min(1).max(8_000),
    expectedOutput: z.string().min(1).max(2_000),
    /** A tool the subtask should use, with its arguments (`{key}` strings are filled from the shared context). */
    tool: z.string().min(1).max(64).optional(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    dependencies: z.array(SubtaskId).default([]),
    /** A failure of a critical subtask makes the plan replan at once. */
    critical: z.boolean().default(false),
    /** The role (one of the profile's delegates) that does it; default: the profile's executor role. */
    role: z.string().min(1).max(64).optional(),
    /** Where its result goes in the shared context (default: its id). */
    outputKey: SubtaskId.optional(),
  })
  .strict();
export type Subtask = z.infer<typeof Subtask>;

export const PlanSpec = z.object({ subtasks: z.array(Subtask).min(1) }).strict();
export type PlanSpec = z.infer<typeof PlanSpec>;

/** The JSON Schema the planner is given (models with structured output can be held to it; others are asked to follow it). */
export const PLAN_JSON_SCHEMA = z.toJSONSchema(PlanSpec, { io: 'input' });

/**
 * The first JSON object in a model's text: the whole text, a fenced ```json block, or the span
 * from the first `{` to its matching `}` (JSON-in-text, for models without structured output).
 */
export function extractJsonObject(text: string): unknown {
  const candidates: string[] = [text.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced?.[1]) candidates.push(fenced[1].trim());
  const start = text.indexOf('{');
  if (start >= 0) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        candidates.push(text.slice(start, i + 1));
        break;
      }
    }
  }
  for (const candidate of candidates) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

/** Reads a plan out of the planner's reply; the error says what was wrong, for the planner's next try. */
export function parsePlanText(text: string): { ok: true; plan: PlanSpec } | { ok: false; error: string } {
  const json = extractJsonObject(text);
  if (json === undefined)
    return { ok: false, error: 'the reply held no JSON object; answer with one JSON object {"subtasks": [...]}' };
  const parsed = PlanSpec.safeParse(json);
  if (parsed.success) return { ok: true, plan: parsed.data };
  return {
    ok: false,
    error: `the plan does not match the schema: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(plan)'}: ${i.message}`).join('; ')}`,
  };
}
