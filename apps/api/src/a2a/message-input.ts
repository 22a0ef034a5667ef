import { Role, type Message } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';

/**
 * The content of a user's A2A message as the platform's message text: its text parts in order,
 * a data part as its JSON. A file (`raw` or `url` part) is refused: the platform's messages are text.
 */
export function contentOf(message: Message | undefined): string {
  if (!message) throw new RequestMalformedError('message: send the message');
  if (message.role === Role.ROLE_AGENT)
    throw new RequestMalformedError('message.role: a client sends ROLE_USER messages');
  const texts: string[] = [];
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case === 'text') texts.push(content.value);
    else if (content?.$case === 'data') texts.push(JSON.stringify(content.value));
    else if (content)
      throw new ContentTypeNotSupportedError(
        `message.parts: a ${content.$case} part is not supported; send text or data parts`,
      );
  }
  const text = texts.join('\n');
  if (!text.trim()) throw new RequestMalformedError('message.parts: send at least one non-empty text or data part');
  return text;
}
