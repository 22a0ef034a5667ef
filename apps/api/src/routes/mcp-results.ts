import type { orchestratorV1 } from '@platform/proto';
import { answerTextOf } from '../turns/answer-stream.js';
import { structuredContentOf, type AgentTool } from './mcp-tools.js';

/** A finished turn of a tool call, and the conversation it ran in. */
export interface TurnOutcome {
  result: orchestratorV1.HandleMessageResponse;
  conversationId: string;
}

/** An approval request as a waiting turn's `pending` carries it. */
interface PendingApproval {
  approvalId: string;
  actionSummary: string;
  details: Record<string, unknown>;
  options: string[];
  allowModification: boolean;
}

/** An agent-tool the run waits for (a waiting turn's `pending`). */
export interface PendingItem {
  callId: string;
  agentName: string;
  waitingFor: 'input' | 'approval';
  prompt: string;
  approval?: PendingApproval;
}

/** The MCP CallToolResult this api answers (the SDK's type, with the fields it fills). */
export interface ToolCallResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta: { conversationId: string; runId: string; status: string; stopReason: string };
}

/** What a waiting turn waits for: its agent-tools, oldest first. */
export function pendingOf(result: orchestratorV1.HandleMessageResponse): PendingItem[] {
  return (JSON.parse(result.pendingJson || '[]') as PendingItem[]).filter(
    (p) => p.waitingFor === 'input' || (p.waitingFor === 'approval' && typeof p.approval?.approvalId === 'string'),
  );
}

function text(value: string): { type: 'text'; text: string } {
  return { type: 'text', text: value };
}

/** The second text block of every result: how to continue, for a client's model that reads only the content. */
function continuation({ conversationId, result }: TurnOutcome): { type: 'text'; text: string } {
  return text(
    `conversationId: ${conversationId} (pass it to continue this conversation); runId: ${result.runId} (GET /v1/runs/${result.runId})`,
  );
}

function metaOf({ conversationId, result }: TurnOutcome): ToolCallResult['_meta'] {
  return { conversationId, runId: result.runId, status: result.status, stopReason: result.stopReason };
}

/** What a waiting turn waits for, and how to answer it, in words. */
function waitingText(pending: readonly PendingItem[], conversationId: string): string {
  const lines = pending.map((item) => {
    if (item.waitingFor === 'approval' && item.approval) {
      const { approvalId, actionSummary, details, options } = item.approval;
      return (
        `Waiting for approval: ${actionSummary} (details ${JSON.stringify(details)}; approval id ${approvalId}). ` +
        `To answer, call this tool again with conversationId "${conversationId}" and the message "yes" or "no", ` +
        `or POST /v1/approvals/${approvalId} with {"decision": "${options.includes('approve') ? 'approve' : options[0]}"} (offered: ${options.join(', ')}).`
      );
    }
    return (
      `Waiting for input to '${item.agentName}': ${item.prompt} ` +
      `To answer, call this tool again with conversationId "${conversationId}" and the answer as the message.`
    );
  });
  return lines.join('\n');
}

/**
 * A finished tool call's result (docs/protocols.md#mcp). The agent's answer is the first text block
 * (a structured answer as its JSON, also as `structuredContent`); the second says which
 * conversation and run it was; `_meta` has both for programs. A turn that did not answer (it
 * waits for the user, failed, was cancelled, or its answer never matched the output schema) is
 * `isError: true` with what happened and how to go on: its text is not the agent's answer, and a
 * tool with an output schema must otherwise carry structured content.
 */
export function toolCallResult(tool: AgentTool, outcome: TurnOutcome, note?: string): ToolCallResult {
  const { result, conversationId } = outcome;
  const base = { _meta: metaOf(outcome) };
  const prefix = note ? [text(note)] : [];
  if (result.status === 'waiting') {
    const pending = pendingOf(result);
    const words = pending.length ? waitingText(pending, conversationId) : result.response;
    return { ...base, isError: true, content: [...prefix, text(words), continuation(outcome)] };
  }
  const output = result.outputJson ? (JSON.parse(result.outputJson) as unknown) : undefined;
  const structuredContent = structuredContentOf(tool, output);
  if (result.status !== 'completed' || (tool.structured !== 'none' && !structuredContent)) {
    const why = `The run ended ${result.status} (${result.stopReason}) without an answer${tool.structured !== 'none' ? ' matching the output schema' : ''}.`;
    return {
      ...base,
      isError: true,
      content: [...prefix, text(result.response ? `${why} ${result.response}` : why), continuation(outcome)],
    };
  }
  const answer = answerTextOf({ response: result.response, output });
  return {
    ...base,
    content: [...prefix, text(answer), continuation(outcome)],
    ...(structuredContent ? { structuredContent } : {}),
  };
}

/** A call refused before or while it ran (a bad argument, an unknown conversation, a refused turn): `isError` with the api's code and message. */
export function refusedResult(
  code: string,
  message: string,
): { content: Array<{ type: 'text'; text: string }>; isError: true } {
  return { isError: true, content: [text(`${code}: ${message}`)] };
}
