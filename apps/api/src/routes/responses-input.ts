import { z } from 'zod';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';

/** One item of a Responses request's `input` array, as sent: only message items are taken (`responsesMessages`). */
export const ResponseInputItem = z
  .object({
    type: z.string().optional(),
    role: z.string().optional(),
    content: z.unknown().optional(),
  })
  .passthrough()
  .meta({
    description:
      'A message item (`type` "message" or absent) with `role` user, system or developer and `content` a string or `input_text` parts; other items are 400 UNSUPPORTED_INPUT_ITEM.',
  });
type ResponseInputItem = z.infer<typeof ResponseInputItem>;

/** A message as the OpenAI-style turn input takes it (`facadeInput`). */
interface InputMessage {
  role: string;
  content: string | Array<{ type: 'text'; text: string }>;
}

const ROLES = new Set(['user', 'system', 'developer']);

function unsupported(field: string, message: string): HttpError {
  return new HttpError(400, ApiErrorCodes.UNSUPPORTED_INPUT_ITEM, `${field}: ${message}`, { field });
}

function contentOf(item: ResponseInputItem, field: string): InputMessage['content'] {
  if (typeof item.content === 'string') return item.content;
  if (!Array.isArray(item.content))
    throw unsupported(`${field}.content`, 'must be a string or an array of input_text parts');
  return item.content.map((part: unknown, index) => {
    const at = `${field}.content[${index}]`;
    const typed = (part ?? {}) as { type?: unknown; text?: unknown };
    if (typed.type !== 'input_text')
      throw unsupported(at, `a part of type '${String(typed.type)}' is not supported: send input_text parts`);
    if (typeof typed.text !== 'string') throw unsupported(`${at}.text`, 'must be a string');
    return { type: 'text' as const, text: typed.text };
  });
}

/**
 * The messages of a Responses request's `input`: a string is one user message; an array holds
 * message items of role user, system or developer. Anything else is refused (400
 * UNSUPPORTED_INPUT_ITEM): the agent's tools run on the platform, so there are no function call
 * outputs to hand back, the earlier assistant turns are the platform's (`previous_response_id`),
 * and only text goes in.
 */
export function responsesMessages(input: string | readonly ResponseInputItem[]): InputMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return input.map((item, index) => {
    const field = `input[${index}]`;
    if (item.type !== undefined && item.type !== 'message')
      throw unsupported(
        field,
        `items of type '${item.type}' are not supported: send message items (the agent's tools run on the platform)`,
      );
    if (!item.role || !ROLES.has(item.role))
      throw unsupported(
        `${field}.role`,
        item.role === 'assistant'
          ? 'assistant messages are not taken: continue a conversation with previous_response_id (the platform keeps its history)'
          : `must be user, system or developer, not '${String(item.role)}'`,
      );
    return { role: item.role, content: contentOf(item, field) };
  });
}
