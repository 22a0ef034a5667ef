import type { AssistantReply } from './assistant-reply.js';
import { toolsDisabled, type ChatCompletionRequest } from './chat-request.js';
import { toolReplyCallId } from './ids.js';
import type { Scenario, ToolReplySpec } from './scenario-schema.js';
import { renderArguments, templateContextFrom } from './templates.js';

/** A `toolReplies` entry chosen to answer a request. */
export interface ToolReplyMatch {
  /** The scenario that defines the reply (the selected one, or another one as a fallback). */
  scenario: Scenario;
  toolName: string;
  reply: ToolReplySpec;
}

/**
 * The tools a request forces, in the order offered: the function named by an object `tool_choice`
 * (if offered), every offered tool with `tool_choice: "required"`, or the only offered tool when
 * exactly one is offered. None when tools are disabled (no tools, or `tool_choice: "none"`).
 */
export function forcedToolNames(request: ChatCompletionRequest): string[] {
  if (toolsDisabled(request)) return [];
  const offered = (request.tools ?? []).map((tool) => tool.function.name);
  const choice = request.tool_choice;
  if (choice !== null && typeof choice === 'object') {
    return offered.includes(choice.function.name) ? [choice.function.name] : [];
  }
  if (choice === 'required') return offered;
  return offered.length === 1 ? offered : [];
}

function replyFor(scenario: Scenario, toolName: string): ToolReplySpec | undefined {
  const replies = scenario.toolReplies;
  // Own keys only: a tool named e.g. "constructor" must not find Object.prototype members.
  return replies && Object.hasOwn(replies, toolName) ? replies[toolName] : undefined;
}

/**
 * Finds the `toolReplies` entry that answers a request forcing a tool (see {@link forcedToolNames}):
 * the selected scenario is asked first, then every other scenario in name order, so a side request
 * that carries no `[scenario:…]` marker is still answered. Undefined when none matches (the request
 * is then answered from the scenario's steps, as usual).
 */
export function matchToolReply(
  request: ChatCompletionRequest,
  selected: Scenario,
  scenarios: ReadonlyMap<string, Scenario>,
): ToolReplyMatch | undefined {
  const names = forcedToolNames(request);
  if (names.length === 0) return undefined;
  const others = [...scenarios.values()]
    .filter((s) => s.name !== selected.name)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const scenario of [selected, ...others]) {
    for (const toolName of names) {
      const reply = replyFor(scenario, toolName);
      if (reply) return { scenario, toolName, reply };
    }
  }
  return undefined;
}

/** The single tool call answering a matched request (arguments templated like a step's). */
export function buildToolReply(match: ToolReplyMatch, request: ChatCompletionRequest): AssistantReply {
  const args = match.reply.arguments;
  const rendered =
    typeof args === 'string' ? args : JSON.stringify(renderArguments(args, templateContextFrom(request.messages)));
  return {
    content: null,
    toolCalls: [
      {
        id: match.reply.id ?? toolReplyCallId(request.messages, match.toolName),
        name: match.toolName,
        arguments: rendered,
      },
    ],
    finishReason: 'tool_calls',
  };
}
