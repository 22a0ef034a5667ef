import type { ChatCompletionRequest } from '../chat-request.js';
import { contentText } from '../conversation.js';
import { answerFromMemory, summariseSession } from './answer-from-memory.js';
import { extractKnowledge } from './extract-knowledge.js';
import { extractTurns } from './extract-turns.js';

/** The memory service's structured requests the simulator answers without a scenario. */
const STRUCTURED_REPLY_KINDS = [
  'memory_extraction',
  'memory_extraction_batch',
  'memory_answer',
  'session_summary',
] as const;
type StructuredReplyKind = (typeof STRUCTURED_REPLY_KINDS)[number];

/**
 * Markers a test puts in conversation text (it reaches the memory service's prompt) to script how
 * the "model" misbehaves on a structured request:
 * - `[memory-sim:malformed]` answers text that is not JSON, every time;
 * - `[memory-sim:invalid]` answers JSON that breaks the schema (confidence 7, sourceSeq 0), every time;
 * - `[memory-sim:malformed-once]` answers not-JSON to a first attempt, and correctly to a retry (a
 *   request with more than one user message: the client's "your previous answer was invalid");
 * - `[memory-sim:delay=<ms>]` waits before answering (a slow model; at most 60 s).
 * In a several-turn extraction request (`memory_extraction_batch`) `invalid` breaks only the entry
 * of the turn whose text carries it, and two more markers script one turn's entry (see
 * extract-turns.ts): `invalid-in-batch` and `missing-in-batch`; `malformed`, `malformed-once` and
 * `delay` still act on the whole answer.
 */
const MEMORY_SIM_MARKER = /\[memory-sim:(malformed-once|malformed|invalid|delay=(\d{1,5}))\]/g;
const MAX_DELAY_MS = 60_000;

/** What to send for a structured request. */
export interface StructuredReply {
  kind: StructuredReplyKind;
  /** The message content: JSON, or deliberately broken text. */
  content: string;
  delayMs: number;
  /** `malformed` or `invalid` when the answer is broken on purpose (`invalid`: some turns' entries, for a several-turn request). */
  misbehaviour: 'malformed' | 'invalid' | undefined;
}

interface JsonSchemaFormat {
  name?: unknown;
  schema?: { properties?: Record<string, unknown> };
}

/** Which structured request this is, by `response_format.json_schema` name or, failing that, its properties. */
function structuredReplyKind(request: ChatCompletionRequest): StructuredReplyKind | undefined {
  const format = (request as { response_format?: { type?: unknown; json_schema?: JsonSchemaFormat } }).response_format;
  if (format?.type !== 'json_schema' || !format.json_schema) return undefined;
  const { name, schema } = format.json_schema;
  if (typeof name === 'string' && (STRUCTURED_REPLY_KINDS as readonly string[]).includes(name))
    return name as StructuredReplyKind;
  const properties = new Set(Object.keys(schema?.properties ?? {}));
  if (properties.has('facts') && properties.has('entities')) return 'memory_extraction';
  const turnEntry =
    (schema?.properties?.['turns'] as { items?: { properties?: Record<string, unknown> } } | undefined)?.items
      ?.properties ?? {};
  if ('facts' in turnEntry && 'entities' in turnEntry) return 'memory_extraction_batch';
  if (properties.has('answer') && properties.has('citedIds')) return 'memory_answer';
  if (properties.has('summary') && properties.has('topics')) return 'session_summary';
  return undefined;
}

const NOT_JSON = 'Sure! Here is what I found: the user mentioned a few things {facts: [';

function brokenAgainstSchema(kind: StructuredReplyKind): string {
  switch (kind) {
    case 'memory_extraction_batch':
      return JSON.stringify({ turns: 'all of them' });
    case 'memory_extraction':
      return JSON.stringify({
        entities: [],
        facts: [{ subject: 'user', predicate: 'lives in?!', object: '', confidence: 7, sourceSeq: 0 }],
        preferences: [],
        topics: [],
        episodeSummary: '',
      });
    case 'memory_answer':
      return JSON.stringify({ answer: '', answered: 'yes', citedIds: 'all' });
    case 'session_summary':
      return JSON.stringify({ summary: '', topics: 'none' });
  }
}

function correctAnswer(kind: StructuredReplyKind, prompt: string): unknown {
  switch (kind) {
    case 'memory_extraction':
      return extractKnowledge(prompt);
    case 'memory_extraction_batch':
      return { turns: extractTurns(prompt).turns };
    case 'memory_answer':
      return answerFromMemory(prompt);
    case 'session_summary':
      return summariseSession(prompt);
  }
}

/** Builds the answer to a structured memory request, or undefined when the request is not one. */
export function buildStructuredReply(request: ChatCompletionRequest): StructuredReply | undefined {
  const kind = structuredReplyKind(request);
  if (!kind) return undefined;
  const userTexts = request.messages.filter((m) => m.role === 'user').map((m) => contentText(m.content));
  const prompt = userTexts[0] ?? '';
  const isRetry = userTexts.length > 1;
  let misbehaviour: StructuredReply['misbehaviour'];
  let delayMs = 0;
  for (const match of request.messages
    .map((m) => contentText(m.content))
    .join('\n')
    .matchAll(MEMORY_SIM_MARKER)) {
    const [, what, delay] = match;
    if (delay !== undefined) delayMs = Math.min(Number(delay), MAX_DELAY_MS);
    else if (what === 'malformed' || (what === 'malformed-once' && !isRetry)) misbehaviour = 'malformed';
    else if (what === 'invalid' && kind !== 'memory_extraction_batch') misbehaviour = 'invalid';
  }
  if (kind === 'memory_extraction_batch' && misbehaviour === undefined) {
    const answer = extractTurns(prompt);
    return {
      kind,
      content: JSON.stringify({ turns: answer.turns }),
      delayMs,
      misbehaviour: answer.misbehaving.length > 0 ? 'invalid' : undefined,
    };
  }
  const content =
    misbehaviour === 'malformed'
      ? NOT_JSON
      : misbehaviour === 'invalid'
        ? brokenAgainstSchema(kind)
        : JSON.stringify(correctAnswer(kind, prompt));
  return { kind, content, delayMs, misbehaviour };
}
