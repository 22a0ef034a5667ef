import { shortenText, type ChatMessage, type IngestedMessage } from '@platform/contracts';

const cut = (text: string, maxChars: number): string => shortenText(text, maxChars, '… [cut]');

/**
 * A finished turn as the extractor reads it: one block per message, labelled with its seq, so
 * the model can say which message a fact came from. Tool results are cut to `toolResultChars`
 * (they may contribute entities, but must not drown the conversation).
 */
export function renderTurnTranscript(messages: readonly IngestedMessage[], toolResultChars: number): string {
  return messages.map(({ seq, message }) => `[seq ${seq}] ${renderMessage(message, toolResultChars)}`).join('\n');
}

function renderMessage(message: ChatMessage, toolResultChars: number): string {
  switch (message.role) {
    case 'system':
      return `system: ${message.content}`;
    case 'user':
      return `user: ${message.content}`;
    case 'assistant': {
      const calls = (message.toolCalls ?? []).map((c) => `${c.name}(${cut(c.arguments, 500)})`);
      return `assistant: ${message.content ?? ''}${calls.length ? ` [called ${calls.join(', ')}]` : ''}`;
    }
    case 'tool':
      return `tool result of ${message.toolName}${message.isError ? ' (error)' : ''}: ${cut(message.content, toolResultChars)}`;
  }
}
