import { randomUUID } from 'node:crypto';
import { ConversationId } from '@platform/contracts';
import { HttpError } from '../http-errors.js';
import { ApiErrorCodes } from '../error-codes.js';

interface FacadeMessageLike {
  role: string;
  content?: string | Array<{ type: string; text?: string | undefined }> | null | undefined;
}

function textOf(message: FacadeMessageLike): string {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content))
    return message.content.flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('\n');
  return '';
}

/**
 * The turn to run for an OpenAI-style request. With `x-conversation-id` the platform keeps the
 * history, so only the latest user message is sent. Without it the request stands alone: a new
 * conversation, and the earlier messages the client sent travel with the latest one as context.
 */
export function facadeInput(
  messages: readonly FacadeMessageLike[],
  conversationHeader: string | string[] | undefined,
  /** The conversation to use without the header (default: a new random one). */
  newConversationId: string = `chat-${randomUUID()}`,
): { conversationId: string; content: string } {
  const lastUserIndex = messages.map((m) => m.role).lastIndexOf('user');
  if (lastUserIndex < 0)
    throw new HttpError(400, ApiErrorCodes.NO_USER_MESSAGE, 'messages must contain a user message');
  const latest = textOf(messages[lastUserIndex]!);
  if (!latest.trim()) throw new HttpError(400, ApiErrorCodes.EMPTY_CONTENT, 'the last user message is empty');
  const header = Array.isArray(conversationHeader) ? conversationHeader[0] : conversationHeader;
  if (header !== undefined) {
    const parsed = ConversationId.safeParse(header);
    if (!parsed.success)
      throw new HttpError(400, ApiErrorCodes.INVALID_CONVERSATION_ID, 'x-conversation-id is invalid');
    return { conversationId: parsed.data, content: latest };
  }
  const earlier = messages
    .slice(0, lastUserIndex)
    .filter((m) => m.role !== 'tool')
    .map((m) => `${m.role === 'developer' ? 'system' : m.role}: ${textOf(m)}`)
    .filter((line) => !line.endsWith(': '));
  const content = earlier.length ? `Conversation so far:\n${earlier.join('\n')}\n\nLatest message:\n${latest}` : latest;
  return { conversationId: newConversationId, content };
}

/** OpenAI's finish reason for a run's stop reason. */
export function finishReasonOf(stopReason: string): 'stop' | 'length' {
  return stopReason === 'max_turns' || stopReason === 'context_overflow' ? 'length' : 'stop';
}
