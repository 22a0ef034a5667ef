import { parseLenientJson } from './lenient-json.js';
import { parseErrors, type ReActStep } from './react-reply.js';

type JsonObject = Record<string, unknown>;

// Key spellings seen across prompt styles and models (LangChain, Llama tool JSON, the design's mocks).
const NAME_KEYS = ['tool', 'tool_name', 'name', 'action', 'function'];
const ARGUMENT_KEYS = ['arguments', 'args', 'action_input', 'input', 'parameters', 'params', 'tool_input'];
const THOUGHT_KEYS = ['thought', 'thoughts', 'reasoning'];
const ANSWER_KEYS = ['answer', 'final_answer', 'output', 'response', 'content', 'text', ...ARGUMENT_KEYS];

/** Whether a value is a plain JSON object (not an array or null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const normalizeKey = (key: string) => key.toLowerCase().replace(/[\s-]+/g, '_');

/** The first of `keys` present in `object`, matching case- and separator-insensitively. */
function lookup(object: JsonObject, keys: readonly string[]): { key: string; value: unknown } | undefined {
  const byNormal = new Map(Object.keys(object).map((key) => [normalizeKey(key), key]));
  for (const wanted of keys) {
    const key = byNormal.get(wanted);
    if (key !== undefined) return { key, value: object[key] };
  }
  return undefined;
}

/** `Final Answer` written as an action (LangChain's JSON agent, `{"action": "final", "answer": ...}`). */
export function isFinalName(name: string, object?: JsonObject): boolean {
  const compact = name.toLowerCase().replace(/[^a-z]/g, '');
  if (compact === 'finalanswer') return true;
  return (
    (compact === 'final' || compact === 'finish') &&
    object !== undefined &&
    lookup(object, ['answer', 'final_answer']) !== undefined
  );
}

/** The answer text in a final-answer value: a string, or an object holding one (`{"answer": ...}`). */
export function finalStep(value: unknown): ReActStep {
  let answer = value;
  if (isObject(value)) {
    const inner = lookup(value, ANSWER_KEYS)?.value;
    answer = typeof inner === 'string' ? inner : JSON.stringify(value);
  }
  if (answer !== undefined && answer !== null && typeof answer !== 'string') answer = JSON.stringify(answer);
  const text = typeof answer === 'string' ? answer.trim() : '';
  return text ? { kind: 'final', answer: text } : { kind: 'error', error: parseErrors.emptyFinalAnswer() };
}

/**
 * Normalizes tool arguments to an object. Models often JSON-encode them into a string
 * (`"arguments": "{\"q\": 1}"`, the OpenAI wire habit); an empty value means no arguments.
 */
export function toArguments(
  value: unknown,
): { ok: true; value: JsonObject; repaired: boolean } | { ok: false; value: unknown } {
  if (value === undefined || value === null) return { ok: true, value: {}, repaired: false };
  if (isObject(value)) return { ok: true, value, repaired: false };
  if (typeof value !== 'string') return { ok: false, value };
  const text = value.trim();
  if (!text) return { ok: true, value: {}, repaired: false };
  const parsed = parseLenientJson(text);
  return parsed.ok && isObject(parsed.value)
    ? { ok: true, value: parsed.value, repaired: parsed.repaired }
    : { ok: false, value };
}

/** Reads `{"tool": ..., "arguments": {...}}` in any of its accepted spellings. */
export function interpretActionObject(object: JsonObject, repaired: boolean): ReActStep {
  for (const key of NAME_KEYS) {
    const found = lookup(object, [key]);
    if (found === undefined) continue;
    // Nested shapes: {"function": {"name": ..., "arguments": ...}}, {"action": {"tool": ...}}.
    if (isObject(found.value)) return interpretActionObject(found.value, repaired);
    if (typeof found.value !== 'string' || !found.value.trim()) continue;
    const tool = found.value.trim();
    if (isFinalName(tool, object)) {
      const rest = Object.fromEntries(Object.entries(object).filter(([key]) => key !== found.key));
      return finalStep(lookup(rest, ANSWER_KEYS)?.value);
    }
    return withArguments(tool, object, found.key, repaired);
  }
  return { kind: 'error', error: parseErrors.missingTool() };
}

function withArguments(tool: string, object: JsonObject, nameKey: string, repaired: boolean): ReActStep {
  const found = lookup(object, ARGUMENT_KEYS);
  if (found === undefined) {
    // No arguments key: the remaining keys are the arguments (`{"tool": "search", "query": "x"}`).
    const rest = Object.fromEntries(
      Object.entries(object).filter(([key]) => key !== nameKey && !THOUGHT_KEYS.includes(normalizeKey(key))),
    );
    return { kind: 'action', tool, arguments: rest, repaired };
  }
  const args = toArguments(found.value);
  if (!args.ok) return { kind: 'error', error: parseErrors.argumentsNotObject(args.value) };
  return { kind: 'action', tool, arguments: args.value, repaired: repaired || args.repaired };
}

/**
 * Reads the object that follows a tool name given on the `Action:` line (`Action: search` then
 * `Action Input: {...}`, or `Action: search {...}`): the object is the arguments, unless it is a full
 * action object naming the same tool.
 */
export function interpretNamedAction(tool: string, object: JsonObject, repaired: boolean): ReActStep {
  if (isFinalName(tool)) return finalStep(object);
  const named = lookup(object, NAME_KEYS);
  if (typeof named?.value === 'string' && named.value.trim().toLowerCase() === tool.toLowerCase())
    return interpretActionObject(object, repaired);
  return { kind: 'action', tool, arguments: object, repaired };
}

/** The `thought` a JSON-only reply carries inside its object, if any. */
export function thoughtOf(object: JsonObject): string | null {
  const found = lookup(object, THOUGHT_KEYS);
  return typeof found?.value === 'string' && found.value.trim() ? found.value.trim() : null;
}

/**
 * Whether an unlabelled JSON object is meant as an action. A bare `name` alone does not count, so an
 * answer that is itself JSON data (`{"name": "Ada", "born": 1815}`) is not taken for a tool call.
 */
export function looksLikeAction(object: JsonObject): boolean {
  if (
    lookup(
      object,
      NAME_KEYS.filter((key) => key !== 'name'),
    ) !== undefined
  )
    return true;
  return lookup(object, ['name']) !== undefined && lookup(object, ARGUMENT_KEYS) !== undefined;
}
