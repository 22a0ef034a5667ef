import { memoryContextItems, RESUMED_CALL_ID_SUFFIX } from '@platform/contracts';
import type { ChatMessage } from './chat-request.js';
import { contentText, latestTurnStartIndex, OBSERVATION_PREFIX } from './conversation.js';
import { stripScenarioMarkers } from './scenario-markers.js';

/** What a template resolves to when the conversation does not hold the value it names. */
const UNAVAILABLE = '(unavailable)';

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const TOOL_RESULT = /^toolResult:([^.\s]+)((?:\.[^.\s]+)*)$/;

/** A parsed `{{...}}` reference. */
type TemplateRef =
  | { kind: 'userMessage' }
  | { kind: 'lastToolResult' }
  | { kind: 'lastObservation' }
  | { kind: 'recalledMemory' }
  | { kind: 'toolResult'; tool: string; path: string[] };

/** Parses the inside of a `{{...}}`; undefined when it names nothing the simulator knows. */
function parseTemplateRef(expression: string): TemplateRef | undefined {
  if (
    expression === 'userMessage' ||
    expression === 'lastToolResult' ||
    expression === 'lastObservation' ||
    expression === 'recalledMemory'
  ) {
    return { kind: expression };
  }
  const match = TOOL_RESULT.exec(expression);
  if (!match?.[1]) return undefined;
  const path = (match[2] ?? '').split('.').filter(Boolean);
  return { kind: 'toolResult', tool: match[1], path };
}

/** Every `{{...}}` in `text` that is not a known template, so bad scenarios fail at load, not mid-test. */
export function unknownTemplates(text: string): string[] {
  return [...text.matchAll(TEMPLATE)].filter((m) => parseTemplateRef(m[1] ?? '') === undefined).map((m) => m[0]);
}

/** The values templates can draw on, extracted once per request. */
export interface TemplateContext {
  userMessage: string | undefined;
  lastToolResult: string | undefined;
  lastObservation: string | undefined;
  /** Items of the long-term memory block(s) in the request's system messages, joined with `; `. */
  recalledMemory: string | undefined;
  /**
   * Content of the latest tool message answering a call to `tool`, anywhere in the conversation
   * (earlier turns and platform-added `:resumed` exchanges included).
   */
  toolResult(tool: string): string | undefined;
}

/** Builds the template context from a request's messages. */
export function templateContextFrom(messages: readonly ChatMessage[]): TemplateContext {
  const turnStart = messages[latestTurnStartIndex(messages)];
  const toolNameByCallId = new Map<string, string>();
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const call of m.tool_calls ?? []) toolNameByCallId.set(call.id, call.function.name);
  }
  // A platform-added result may answer `<id>:resumed` without its assistant call being present: then
  // the original call `<id>` names the tool.
  const toolNameOf = (callId: string) =>
    toolNameByCallId.get(callId) ??
    (callId.endsWith(RESUMED_CALL_ID_SUFFIX)
      ? toolNameByCallId.get(callId.slice(0, -RESUMED_CALL_ID_SUFFIX.length))
      : undefined);
  const toolMessages = messages.filter((m) => m.role === 'tool');
  const lastTool = toolMessages.at(-1);
  const lastObservation = messages.findLast(
    (m) => m.role === 'user' && contentText(m.content).trimStart().startsWith(OBSERVATION_PREFIX),
  );
  const recalled = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .flatMap((m) => memoryContextItems(contentText(m.content)));
  return {
    recalledMemory: recalled.length > 0 ? recalled.join('; ') : undefined,
    userMessage: turnStart ? stripScenarioMarkers(contentText(turnStart.content)) : undefined,
    lastToolResult: lastTool ? contentText(lastTool.content) : undefined,
    lastObservation: lastObservation
      ? contentText(lastObservation.content).trimStart().slice(OBSERVATION_PREFIX.length).trim()
      : undefined,
    toolResult(tool) {
      const answer = toolMessages.findLast((m) => toolNameOf(m.tool_call_id) === tool);
      return answer ? contentText(answer.content) : undefined;
    },
  };
}

function readPath(json: string, path: readonly string[]): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = Array.isArray(value) ? value[Number(key)] : (value as Record<string, unknown>)[key];
    if (value === undefined) return undefined;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function resolve(ref: TemplateRef, ctx: TemplateContext): string | undefined {
  switch (ref.kind) {
    case 'userMessage':
      return ctx.userMessage;
    case 'lastToolResult':
      return ctx.lastToolResult;
    case 'lastObservation':
      return ctx.lastObservation;
    case 'recalledMemory':
      return ctx.recalledMemory;
    case 'toolResult': {
      const content = ctx.toolResult(ref.tool);
      if (content === undefined || ref.path.length === 0) return content;
      return readPath(content, ref.path);
    }
  }
}

/** Replaces every template in `text`; anything missing renders as {@link UNAVAILABLE}. */
export function renderTemplate(text: string, ctx: TemplateContext): string {
  return text.replace(TEMPLATE, (whole, expression: string) => {
    const ref = parseTemplateRef(expression);
    // Unknown templates are rejected at scenario load; left verbatim here so nothing is silently lost.
    if (!ref) return whole;
    return resolve(ref, ctx) ?? UNAVAILABLE;
  });
}

/** Renders templates inside every string of a (JSON-like) tool-arguments value. */
export function renderArguments(value: unknown, ctx: TemplateContext): unknown {
  if (typeof value === 'string') return renderTemplate(value, ctx);
  if (Array.isArray(value)) return value.map((v) => renderArguments(v, ctx));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderArguments(v, ctx)]));
  }
  return value;
}

/** Collects every string inside a (JSON-like) value, for load-time template checks. */
export function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}
