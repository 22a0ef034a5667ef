import { balancedObjectSpans, findBalancedEnd } from './json-scan.js';
import { parseLenientJson } from './lenient-json.js';
import {
  finalStep,
  interpretActionObject,
  interpretNamedAction,
  isFinalName,
  isObject,
  looksLikeAction,
  thoughtOf,
  toArguments,
} from './react-action.js';
import { cleanContent, findLabels, labelContent, stripReasoning, type Label } from './react-labels.js';
import {
  MAX_TOOL_NAME_CHARS,
  parseErrors,
  type ReActParseError,
  type ReActReply,
  type ReActStep,
} from './react-reply.js';

interface ReadStep {
  step: ReActStep;
  /** Where the step's text begins; the thought ends there at the latest. */
  start: number;
  /** A thought found by the step itself (inside a JSON-only reply), used when there is no label. */
  thought?: string | null;
}

const FENCE = /```[\w-]*/g;
// Chat-template tokens some models leak around tool JSON: <tool_call>, <|python_tag|>, [TOOL_CALLS].
const TEMPLATE_TOKEN = /<\/?\|?[\w|]+\|?>|\[[A-Z_]+\]\s*\[?/g;
const TOOL_NAME = /^[\p{L}_][\p{L}\p{N}_.:-]*$/u;
const CALL = /^`?([\p{L}_][\p{L}\p{N}_.-]*)\(([\s\S]*)\)`?$/u;

/**
 * Reads one model reply written under the text protocol. Pure and total: every input yields an
 * action, a final answer, or a typed error. Order of precedence: a `Final Answer:` label wins (even
 * next to an action), then the first `Action:`, then an unlabelled JSON action object.
 */
export function parseReActReply(text: string): ReActReply {
  const body = stripReasoning(text.replace(/\r\n?/g, '\n'));
  const labels = findLabels(body);
  const { step, start, thought } = readStep(body, labels);
  // A name the ToolCall contract would reject is a parse error the model can still correct.
  const checked: ReActStep =
    step.kind === 'action' && step.tool.length > MAX_TOOL_NAME_CHARS
      ? parseErrorStep(parseErrors.invalidToolName(step.tool))
      : step;
  return { ...checked, thought: labelledThought(body, labels, start) ?? thought ?? null };
}

function readStep(body: string, labels: Label[]): ReadStep {
  const action = labels.find((l) => l.kind === 'action' && l.anchored) ?? labels.find((l) => l.kind === 'action');
  // An anchored final answer always wins; an inline one ("... Final Answer: 42") only when it comes
  // after the action, so "my final answer: ..." musing inside a thought does not cancel the action.
  const final =
    labels.find((l) => l.kind === 'final' && l.anchored) ??
    labels.find((l) => l.kind === 'final' && (!action || l.start > action.start));
  if (final) return { step: readFinal(body, labels, final), start: final.start };
  if (action) return { step: readAction(body, labels, action), start: action.start };
  return readBareJson(body) ?? { step: { kind: 'error', error: parseErrors.noActionOrFinal() }, start: body.length };
}

function readFinal(body: string, labels: Label[], label: Label): ReActStep {
  // The answer runs to the next line-anchored step label; a model that goes on with a made-up
  // observation, a new thought or a second answer has finished its answer there.
  const content = labelContent(body, labels, label, (next) => next.anchored && next.kind !== 'actionInput');
  return finalStep(cleanContent(content));
}

/** A tool name written on the `Action:` line itself (`Action: search`, `Action: `search` {...}`). */
function toolNameHint(prefix: string): string | undefined {
  const cleaned = prefix
    .replace(FENCE, ' ')
    .replace(/[`*"'\u201c\u201d\u2018\u2019]/g, ' ')
    .replace(/[(:]\s*$/, '')
    .trim();
  if (/^final[\s_-]*answer$/i.test(cleaned)) return 'Final Answer';
  // A bare JSON literal is a malformed action, not a tool called `null`.
  return TOOL_NAME.test(cleaned) && !/^(?:null|true|false|none)$/i.test(cleaned) ? cleaned : undefined;
}

function readAction(body: string, labels: Label[], label: Label): ReActStep {
  const next = labels.find((other) => other.start >= label.end);
  const block = body.slice(label.end, next ? next.start : body.length);
  // A stuttered label (`Action: Action: {...}`) leaves an empty block; the content follows the repeat.
  if (!block.trim() && next?.kind === 'action') return readAction(body, labels, next);
  const brace = block.indexOf('{');
  const hint = toolNameHint(brace === -1 ? block : block.slice(0, brace));
  if (next?.kind === 'actionInput' && (hint !== undefined || brace === -1))
    return readActionInput(body, labels, next, hint);
  if (brace === -1) {
    const call = readCallSyntax(block);
    if (call) return call;
    if (hint !== undefined)
      return isFinalName(hint)
        ? parseErrorStep(parseErrors.emptyFinalAnswer())
        : { kind: 'action', tool: hint, arguments: {}, repaired: false };
    return readNonObject(block);
  }
  const parsed = readObjectAt(body, label.end + brace, next ? next.start : body.length);
  if (!parsed.ok) return parseErrorStep(parsed.error);
  return hint !== undefined
    ? interpretNamedAction(hint, parsed.value, parsed.repaired)
    : interpretActionObject(parsed.value, parsed.repaired);
}

/** `Action: <tool>` followed by `Action Input: <arguments>` (the LangChain MRKL layout). */
function readActionInput(body: string, labels: Label[], input: Label, tool: string | undefined): ReActStep {
  const content = labelContent(body, labels, input, () => true);
  const brace = content.indexOf('{');
  const beforeBrace = brace === -1 ? '' : content.slice(0, brace).replace(FENCE, '').trim();
  if (tool === undefined) return parseErrorStep(parseErrors.missingTool());
  if (brace !== -1 && beforeBrace === '') {
    const next = labels.find((other) => other.start >= input.end);
    const parsed = readObjectAt(body, input.end + brace, next ? next.start : body.length);
    if (!parsed.ok) return parseErrorStep(parsed.error);
    return interpretNamedAction(tool, parsed.value, parsed.repaired);
  }
  const text = cleanContent(content.replace(FENCE, ''));
  if (isFinalName(tool)) return finalStep(text);
  if (/^(?:none|null|\{\s*\})?$/i.test(text)) return { kind: 'action', tool, arguments: {}, repaired: false };
  // A JSON-encoded object string is fine; plain text ("Action Input: weather in Paris") is not,
  // because only the tool's schema could say which argument it is meant for.
  const args = toArguments(strictJson(text) ?? text);
  return args.ok
    ? { kind: 'action', tool, arguments: args.value, repaired: args.repaired }
    : parseErrorStep(parseErrors.argumentsNotObject(args.value));
}

/** `Action: search(query="x", limit=5)`: a Python-style keyword call, as code-tuned models write. */
function readCallSyntax(block: string): ReActStep | undefined {
  const match = CALL.exec(cleanContent(block.replace(FENCE, '')));
  if (!match) return undefined;
  const inner = match[2]!.trim();
  if (!inner) return { kind: 'action', tool: match[1]!, arguments: {}, repaired: false };
  const parsed = parseLenientJson(`{${inner}}`);
  return parsed.ok && isObject(parsed.value)
    ? { kind: 'action', tool: match[1]!, arguments: parsed.value, repaired: true }
    : undefined;
}

/** Action text with no `{`: JSON of the wrong shape (`[...]`, `"search"`) or prose. */
function readNonObject(block: string): ReActStep {
  const text = cleanContent(block.replace(FENCE, ''));
  const value = strictJson(text);
  if (value !== undefined) return parseErrorStep(parseErrors.notObject(value));
  return parseErrorStep(parseErrors.invalidJson(text, text ? 'no "{" found' : 'the action is empty'));
}

type ObjectRead =
  { ok: true; value: Record<string, unknown>; repaired: boolean } | { ok: false; error: ReActParseError };

/**
 * Parses the object opening at `start`: the brace-balanced text when it closes, else (a truncated
 * reply) everything up to `limit`, cut at a closing code fence, for the lenient reader to close.
 */
function readObjectAt(body: string, start: number, limit: number): ObjectRead {
  const end = findBalancedEnd(body, start);
  let region = end === -1 ? body.slice(start, limit) : body.slice(start, end);
  if (end === -1) region = region.replace(/\n[ \t]*```[\s\S]*$/, '');
  const parsed = parseLenientJson(region);
  if (!parsed.ok) return { ok: false, error: parseErrors.invalidJson(region, parsed.error) };
  if (!isObject(parsed.value)) return { ok: false, error: parseErrors.invalidJson(region) };
  return { ok: true, value: parsed.value, repaired: parsed.repaired };
}

/** A reply that is only a JSON action object (no `Action:` label), as JSON-mode models write. */
function readBareJson(body: string): ReadStep | undefined {
  const start = balancedObjectSpans(body)[0]?.[0] ?? body.indexOf('{');
  if (start === -1) return undefined;
  const parsed = readObjectAt(body, start, body.length);
  if (!parsed.ok || !looksLikeAction(parsed.value)) return undefined;
  return {
    step: interpretActionObject(parsed.value, parsed.repaired),
    start,
    thought: thoughtOf(parsed.value) ?? prose(body.slice(0, start)),
  };
}

/**
 * The `Thought:` content (up to the next line label or the step itself), else the prose before the
 * step. Inline labels inside the thought ("before my final answer: ...") do not cut it short.
 */
function labelledThought(body: string, labels: Label[], stepStart: number): string | null {
  const label = labels.find((l) => l.kind === 'thought');
  if (!label) return labels.some((l) => l.start === stepStart) ? prose(body.slice(0, stepStart)) : null;
  const end = labels.find((l) => l.start >= label.end && (l.anchored || l.start === stepStart))?.start ?? body.length;
  return prose(body.slice(label.end, stepStart > label.end ? Math.min(end, stepStart) : end));
}

/** Text cleaned for use as a thought: fences and leaked chat-template tokens removed, null if empty. */
function prose(text: string): string | null {
  const cleaned = cleanContent(text.replace(FENCE, '').replace(TEMPLATE_TOKEN, ''));
  return /[\p{L}\p{N}]/u.test(cleaned) ? cleaned : null;
}

function strictJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function parseErrorStep(error: ReActParseError): ReActStep {
  return { kind: 'error', error };
}
