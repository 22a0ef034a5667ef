import type { AssistantReply } from './assistant-reply.js';
import { toolsDisabled, type ChatCompletionRequest, type ChatMessage } from './chat-request.js';
import { contentText, latestTurnStartIndex } from './conversation.js';
import { toolCallId } from './ids.js';
import { stripScenarioMarkers } from './scenario-markers.js';
import { intentsOf, placeOf, type Intent } from './user-intents.js';

/** What the simulated model says when the text asks for nothing it can work out. */
const CANNOT_ANSWER =
  'I am llm-sim, the simulated model of this platform: I can work out arithmetic with the calculator tool and tell the time anywhere with current_time, but I cannot really answer "{{question}}". Point OPENAI_BASE_URL at a real model for that.';

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const stringOr = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);
const clip = (text: string, max = 200): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** One sentence about one tool call and its result (or its failure, said as such). */
function sentenceFor(name: string, args: Record<string, unknown>, result: string | undefined): string {
  const output = result === undefined ? undefined : parseJson(result);
  if (name === 'calculator') {
    const expression = stringOr(args['expression'], '');
    return output && 'result' in output
      ? `${expression} = ${String(output['result'])}.`
      : `I could not work out ${expression}: ${clip(result ?? 'no result came back')}.`;
  }
  if (name === 'current_time') {
    const place = placeOf(stringOr(args['timezone'], 'UTC'));
    return output && typeof output['local'] === 'string'
      ? `The current time in ${place} is ${output['local']}.`
      : `I could not get the time in ${place}: ${clip(result ?? 'no result came back')}.`;
  }
  return `${name} answered: ${clip(result ?? 'nothing')}.`;
}

/** The final answer from the tool calls of this turn and their results. */
function answerFromResults(turn: readonly ChatMessage[]): string {
  const results = new Map(
    turn.flatMap((m) => (m.role === 'tool' ? [[m.tool_call_id, contentText(m.content)] as const] : [])),
  );
  const calls = turn.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : []));
  return calls
    .map((call) => sentenceFor(call.function.name, parseJson(call.function.arguments) ?? {}, results.get(call.id)))
    .join(' ');
}

function cannotAnswer(question: string, missing: readonly string[]): string {
  if (missing.length > 0)
    return `I would need the ${missing.join(' and ')} tool${missing.length > 1 ? 's' : ''} to answer that, and this request does not offer ${missing.length > 1 ? 'them' : 'it'}.`;
  return CANNOT_ANSWER.replace('{{question}}', clip(question, 120));
}

/**
 * The reply of a step with `understandsUser`: the first step of a turn calls `calculator` for the
 * arithmetic in the user's text and `current_time` for the times it asks (those the request
 * offers); the next answers from their results; a text that asks for neither gets an honest
 * "I cannot answer that".
 */
export function understoodReply(request: ChatCompletionRequest, stepIndex: number): AssistantReply {
  const start = latestTurnStartIndex(request.messages);
  const turn = request.messages.slice(start + 1);
  const question = start >= 0 ? stripScenarioMarkers(contentText(request.messages[start]!.content)) : '';
  if (turn.some((m) => m.role === 'tool'))
    return { content: answerFromResults(turn), toolCalls: [], finishReason: 'stop' };

  const offered = new Set(toolsDisabled(request) ? [] : (request.tools ?? []).map((t) => t.function.name));
  const intents = intentsOf(question);
  const usable = intents.filter((i) => offered.has(i.tool));
  if (usable.length === 0) {
    const missing = [...new Set(intents.map((i: Intent) => i.tool))];
    return { content: cannotAnswer(question, missing), toolCalls: [], finishReason: 'stop' };
  }
  return {
    content: null,
    toolCalls: usable.map((intent, callIndex) => ({
      id: toolCallId(request.messages, stepIndex, callIndex),
      name: intent.tool,
      arguments: JSON.stringify(intent.arguments),
    })),
    finishReason: 'tool_calls',
  };
}
