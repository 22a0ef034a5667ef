import type { ChatMessage, HistoryEntry } from '../api/types.js';

/** A tool call as a chat shows it: folded under the answer it led to. */
export interface ChatToolCall {
  callId: string;
  name: string;
  arguments: string;
  status?: string;
  result?: string;
  errorCode?: string;
}

/** One bubble of a chat. */
export type ChatItem =
  | { kind: 'user'; key: string; text: string; runId: string | null; seq?: number }
  | {
      kind: 'assistant';
      key: string;
      text: string;
      runId: string | null;
      toolCalls: ChatToolCall[];
      /** The seq of the bubble's last stored message (where "Fork from here" cuts). */
      seq?: number;
    };

/**
 * A conversation's stored history as a chat: user messages, and per run the assistant's text
 * with the tool calls of that run folded into it (results matched by call id). Messages the
 * platform wrote to the model (`synthetic` user messages) are left out.
 */
export function chatFromHistory(entries: readonly HistoryEntry[]): ChatItem[] {
  const items: ChatItem[] = [];
  const calls = new Map<string, ChatToolCall>();
  let current: Extract<ChatItem, { kind: 'assistant' }> | undefined;
  const assistantFor = (entry: HistoryEntry): Extract<ChatItem, { kind: 'assistant' }> => {
    if (!current || current.runId !== entry.runId) {
      current = { kind: 'assistant', key: `a-${entry.seq}`, text: '', runId: entry.runId, toolCalls: [] };
      items.push(current);
    }
    return current;
  };
  for (const entry of entries) {
    const message: ChatMessage = entry.message;
    if (message.role === 'system') continue;
    if (message.role === 'user') {
      if (message.synthetic) continue;
      items.push({ kind: 'user', key: `u-${entry.seq}`, text: message.content, runId: entry.runId, seq: entry.seq });
      current = undefined;
      continue;
    }
    const assistant = assistantFor(entry);
    assistant.seq = entry.seq;
    if (message.role === 'assistant') {
      if (message.content)
        assistant.text = assistant.text ? `${assistant.text}\n\n${message.content}` : message.content;
      for (const call of message.toolCalls ?? []) {
        const folded: ChatToolCall = { callId: call.id, name: call.name, arguments: call.arguments };
        calls.set(call.id, folded);
        assistant.toolCalls.push(folded);
      }
      continue;
    }
    const call = calls.get(message.toolCallId);
    if (call)
      Object.assign(call, {
        status: message.status,
        result: message.content,
        ...(message.errorCode ? { errorCode: message.errorCode } : {}),
      });
  }
  return items;
}

/** A turn as it streams in: the answer's text so far, its tool calls, and how it ended. */
export interface LiveTurn {
  runId: string | null;
  text: string;
  toolCalls: ChatToolCall[];
  state: string;
  done: boolean;
  /** Set by `execution_end`. */
  status?: string;
  stopReason?: string;
  error?: string;
}

export const NEW_TURN: LiveTurn = { runId: null, text: '', toolCalls: [], state: 'starting', done: false };

/** A field of an event's data as text (strings as they are, anything else as JSON). */
function textOf(value: unknown, fallback = ''): string {
  if (value === undefined || value === null) return fallback;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The live turn after one of its events (pure: the chat page keeps the state). */
export function applyRunEvent(
  turn: LiveTurn,
  event: { type: string; data: Record<string, unknown>; runId?: string },
): LiveTurn {
  const data = event.data;
  const runId = turn.runId ?? event.runId ?? null;
  switch (event.type) {
    case 'message_start':
      // Text a model writes before calling tools is replaced by the next message's.
      return { ...turn, runId, text: '' };
    case 'message_chunk':
      return { ...turn, runId, text: turn.text + textOf(data['delta']) };
    case 'message_end': {
      const message = data['message'] as { content?: string | null } | undefined;
      return { ...turn, runId, text: message?.content ?? turn.text };
    }
    case 'state_change':
      // A retried model call streams its message again from the start.
      return {
        ...turn,
        runId,
        state: textOf(data['state'], turn.state),
        ...(data['state'] === 'retrying_model' ? { text: '' } : {}),
      };
    case 'tool_call_start':
      return {
        ...turn,
        runId,
        toolCalls: [
          ...turn.toolCalls,
          { callId: textOf(data['callId']), name: textOf(data['name']), arguments: textOf(data['arguments']) },
        ],
      };
    case 'tool_result':
      return {
        ...turn,
        runId,
        toolCalls: turn.toolCalls.map((c) =>
          c.callId === data['callId'] ? { ...c, status: textOf(data['status']), result: textOf(data['content']) } : c,
        ),
      };
    case 'execution_end': {
      const result = (data['result'] ?? {}) as {
        response?: string;
        stopReason?: string;
        status?: string;
        error?: { message?: string };
      };
      return {
        ...turn,
        runId,
        done: true,
        state: 'finished',
        text: result.response ?? turn.text,
        ...(result.stopReason ? { stopReason: result.stopReason } : {}),
        ...(result.status ? { status: result.status } : {}),
        ...(result.error?.message ? { error: result.error.message } : {}),
      };
    }
    default:
      return runId === turn.runId ? turn : { ...turn, runId };
  }
}
