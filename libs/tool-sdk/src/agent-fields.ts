import { TASK_INSTRUCTION_PARAMETER } from '@platform/contracts';
import { fieldDescription } from './agent-schema.js';
import type { AgentField } from './agent-schema.js';
import type { AgentToolDefinition } from './define-agent-tool.js';

/** A field the agent still needs; `given` is the rejected value, if one was given. */
export interface Missing {
  name: string;
  description: string;
  reason?: string;
  given?: unknown;
}

/** The state of an agent's fields after applying the collection rules to some values. */
export interface Collection {
  /** What the runner hands back to be stored: the accepted values as given (JSON), defaults, and `task_instruction`. */
  collected: Record<string, unknown>;
  /** What `run` gets: the parsed (possibly transformed) values, by field name. */
  values: Record<string, unknown>;
  missing: Missing[];
  taskInstruction: string | undefined;
}

type Check = { ok: true; value: unknown } | { ok: false; reason: string };

/** A value counts as given unless it is `undefined` or `null` (models often send null for "unknown"). */
function isGiven(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** Checks one given value: the field's schema first, then its validator. */
function checkValue(field: AgentField, value: unknown): Check {
  const parsed = field.schema.safeParse(value);
  if (!parsed.success) {
    const reason = parsed.error.issues
      .map((issue) => (issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
      .join('; ');
    return { ok: false, reason };
  }
  const problem = field.validate?.(parsed.data);
  return problem === undefined ? { ok: true, value: parsed.data } : { ok: false, reason: problem };
}

/**
 * Applies the field collection rules (seed 000, section 6) to `given`: a valid value is taken; an
 * invalid one counts as missing, with the reason; an absent optional field gets its default; an
 * absent required field is missing. Keys that name no field are ignored, except a string
 * `task_instruction`, which is kept for `run`.
 */
export function collectFields(agent: AgentToolDefinition, given: Record<string, unknown>): Collection {
  const collected: Record<string, unknown> = {};
  const values: Record<string, unknown> = {};
  const missing: Missing[] = [];
  for (const field of agent.fields) {
    const raw = given[field.name];
    if (isGiven(raw)) {
      const check = checkValue(field, raw);
      if (check.ok) {
        collected[field.name] = raw;
        values[field.name] = check.value;
      } else {
        missing.push({ name: field.name, description: fieldDescription(field), reason: check.reason, given: raw });
      }
    } else if (field.hasDefault) {
      collected[field.name] = field.default;
      values[field.name] = field.schema.parse(field.default);
    } else if (!field.required) {
      // The schema accepts undefined (checked by defineAgentTool); a zod `.default()` fills in here.
      values[field.name] = field.schema.parse(undefined);
    } else {
      missing.push({ name: field.name, description: fieldDescription(field) });
    }
  }
  const instruction = given[TASK_INSTRUCTION_PARAMETER];
  const taskInstruction = typeof instruction === 'string' && instruction.trim() ? instruction : undefined;
  if (taskInstruction !== undefined) collected[TASK_INSTRUCTION_PARAMETER] = taskInstruction;
  return { collected, values, missing, taskInstruction };
}

/** `base` with every given value of `update` laid over it: a field given again overrides. */
export function mergeGiven(base: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...base };
  for (const [name, value] of Object.entries(update)) if (isGiven(value)) merged[name] = value;
  return merged;
}

/** Problems with the changes of an `edit`, one line each; empty when every change is acceptable. */
export function checkChanges(agent: AgentToolDefinition, changes: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(changes)) {
    if (name === TASK_INSTRUCTION_PARAMETER) {
      if (typeof value !== 'string') problems.push(`${name}: must be text`);
      continue;
    }
    const field = agent.fields.find((f) => f.name === name);
    if (!field) {
      problems.push(`${name}: there is no such field (fields: ${agent.fields.map((f) => f.name).join(', ')})`);
      continue;
    }
    if (!isGiven(value)) {
      if (field.required) problems.push(`${name}: is required and cannot be removed`);
      continue;
    }
    const check = checkValue(field, value);
    if (!check.ok) problems.push(`${name}: ${check.reason}`);
  }
  return problems;
}

/** Applies valid `changes` to `collected`; a null change removes an optional field (its default applies again). */
export function applyChanges(
  collected: Record<string, unknown>,
  changes: Record<string, unknown>,
): Record<string, unknown> {
  const next = { ...collected };
  for (const [name, value] of Object.entries(changes)) {
    if (isGiven(value)) next[name] = value;
    else delete next[name];
  }
  return next;
}
