import { toolsDisabled, type ChatCompletionRequest } from './chat-request.js';
import type { AssistantReply } from './assistant-reply.js';
import { toolCallId } from './ids.js';
import type { Scenario, ScenarioStep } from './scenario-schema.js';
import { renderArguments, renderTemplate, templateContextFrom } from './templates.js';
import { understoodReply } from './understood-reply.js';

/** Used when a scenario has no `onToolsDisabled` and the request forbids tool calls. */
const DEFAULT_TOOLS_DISABLED_TEXT =
  'I cannot use tools for this request, so here is a summary of what I have. You asked: {{userMessage}} The latest tool result was: {{lastToolResult}}';

/** Turns a scenario step into a concrete reply for this request (templates rendered, ids assigned). */
export function buildReply(
  scenario: Scenario,
  step: ScenarioStep,
  stepIndex: number,
  request: ChatCompletionRequest,
): AssistantReply {
  if (step.understandsUser) return understoodReply(request, stepIndex);
  const ctx = templateContextFrom(request.messages);
  const calls = step.toolCalls ?? [];
  if (calls.length === 0 || toolsDisabled(request)) {
    // A tool-calling step asked to answer without tools falls back to the scenario's summary text.
    const text =
      calls.length === 0 && step.content !== undefined
        ? step.content
        : (scenario.onToolsDisabled ?? DEFAULT_TOOLS_DISABLED_TEXT);
    return { content: renderTemplate(text, ctx), toolCalls: [], finishReason: step.finishReason ?? 'stop' };
  }
  const toolCalls = calls.map((call, callIndex) => ({
    id: call.id ?? toolCallId(request.messages, stepIndex, callIndex),
    name: call.name,
    arguments:
      typeof call.arguments === 'string' ? call.arguments : JSON.stringify(renderArguments(call.arguments, ctx)),
  }));
  return {
    content: step.content === undefined ? null : renderTemplate(step.content, ctx),
    toolCalls,
    finishReason: step.finishReason ?? 'tool_calls',
  };
}

/** Characters the model "generated", for completion-token estimates. */
export function outputChars(reply: AssistantReply): number {
  return (reply.content ?? '').length + reply.toolCalls.reduce((n, c) => n + c.arguments.length, 0);
}
