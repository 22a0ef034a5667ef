import type { ChatMessage } from '@platform/contracts';

/**
 * A run of messages that must stay together in any request: a system message; an assistant
 * message with tool calls plus the tool results answering them; or one other message.
 * Trimming works on whole units, so a tool call is never separated from its result.
 */
export interface MessageUnit {
  kind: 'system' | 'exchange' | 'single' | 'orphan_tool_result';
  start: number;
  /** Exclusive. */
  end: number;
}

export function toUnits(messages: readonly ChatMessage[]): MessageUnit[] {
  const units: MessageUnit[] = [];
  let i = 0;
  while (i < messages.length) {
    const message = messages[i]!;
    if (message.role === 'system') {
      units.push({ kind: 'system', start: i, end: i + 1 });
      i += 1;
    } else if (message.role === 'assistant' && message.toolCalls?.length) {
      const ids = new Set(message.toolCalls.map((c) => c.id));
      let end = i + 1;
      while (end < messages.length) {
        const next = messages[end]!;
        if (next.role !== 'tool' || !ids.has(next.toolCallId)) break;
        end += 1;
      }
      units.push({ kind: 'exchange', start: i, end });
      i = end;
    } else if (message.role === 'tool') {
      units.push({ kind: 'orphan_tool_result', start: i, end: i + 1 });
      i += 1;
    } else {
      units.push({ kind: 'single', start: i, end: i + 1 });
      i += 1;
    }
  }
  return units;
}

/** Characters of a message as a model sees them (content plus tool-call names and arguments). */
export function messageChars(message: ChatMessage): number {
  let chars = message.content?.length ?? 0;
  if (message.role === 'assistant')
    for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  return chars;
}
