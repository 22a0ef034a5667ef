import { ConversationId } from '@platform/contracts';
import { z } from 'zod';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';

// AG-UI's RunAgentInput (@ag-ui/core), as the api reads it. Messages are kept open (`loose`): only
// the fields the mapping reads are checked, the rest of a client's message travels unread.
const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const AgUiMessage = z.looseObject({
  id: z.string(),
  role: z.enum(['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning']),
  content: z.union([z.string(), z.array(ContentPart), z.record(z.string(), z.unknown())]).optional(),
});
const AgUiTool = z.looseObject({ name: z.string(), description: z.string(), parameters: z.unknown().optional() });
const AgUiContext = z.looseObject({ description: z.string(), value: z.string() });

export const RunAgentInputBody = z
  .looseObject({
    threadId: z.string().min(1).meta({
      description:
        "The conversation (`conversationId`): a new id starts one, a known one continues it (the tenant's own only).",
    }),
    runId: z.string().min(1).meta({
      description:
        "The client's id of this run, echoed in RUN_STARTED/RUN_FINISHED; the platform's run id is `metadata.platformRunId` and the `x-run-id` header.",
    }),
    protocolVersion: z.string().optional(),
    parentRunId: z.string().optional(),
    state: z.unknown().optional().meta({
      description:
        'Shared state: told to the agent with the message and sent back as STATE_SNAPSHOT (the platform does not change it).',
    }),
    messages: z.array(AgUiMessage).min(1, 'send at least one message').meta({
      description:
        "The thread's messages; the last one must be the user's, and it alone is sent (the platform keeps the history).",
    }),
    tools: z.array(AgUiTool).meta({
      description:
        "Client-side tools: not supported (the agent's own tools run on the platform); non-empty is 400 CLIENT_TOOLS_UNSUPPORTED.",
    }),
    context: z.array(AgUiContext).meta({ description: 'Told to the agent with the message.' }),
    forwardedProps: z.unknown().optional().meta({ description: 'Accepted and not read.' }),
    resume: z
      .array(z.unknown())
      .max(0, 'resume is not supported: decide approvals with POST /v1/approvals/{approvalId}')
      .optional(),
  })
  .meta({ id: 'RunAgentInput', description: "AG-UI's RunAgentInput (@ag-ui/core)." });
export type RunAgentInputBody = z.infer<typeof RunAgentInputBody>;

type AgUiMessage = z.infer<typeof AgUiMessage>;

function textOf(message: AgUiMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content))
    return message.content.flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('\n');
  return '';
}

/** The turn a RunAgentInput asks for. */
export interface AgUiTurnInput {
  conversationId: string;
  /** The latest user message, with the client's context and state told after it. */
  content: string;
  /** The input carries earlier assistant or tool messages: it continues a thread that must exist. */
  continues: boolean;
}

/**
 * Maps a RunAgentInput onto a turn: the thread is the conversation, the last message (the user's)
 * is the turn's content, followed by the client's context and state when given. Client-side
 * tools are refused: the agent's own tools run on the platform.
 */
export function agUiTurnInput(input: RunAgentInputBody): AgUiTurnInput {
  if (input.tools.length > 0)
    throw new HttpError(
      400,
      ApiErrorCodes.CLIENT_TOOLS_UNSUPPORTED,
      `client-side tools are not supported (${input.tools.map((t) => t.name).join(', ')}): the agent's own tools run on the platform; send tools: []`,
      { field: 'tools' },
    );
  const conversation = ConversationId.safeParse(input.threadId);
  if (!conversation.success)
    throw new HttpError(400, ApiErrorCodes.INVALID_CONVERSATION_ID, 'threadId is not a valid conversation id', {
      field: 'threadId',
    });
  const latest = input.messages.at(-1)!;
  if (latest.role !== 'user')
    throw new HttpError(
      400,
      ApiErrorCodes.NO_USER_MESSAGE,
      `the last message must be the user's, not '${latest.role}'`,
    );
  const text = textOf(latest);
  if (!text.trim()) throw new HttpError(400, ApiErrorCodes.EMPTY_CONTENT, 'the last user message is empty');
  const told = [
    ...(input.context.length
      ? [`Context from the client:\n${input.context.map((c) => `- ${c.description}: ${c.value}`).join('\n')}`]
      : []),
    ...(input.state !== undefined && input.state !== null
      ? [`Shared state from the client (JSON): ${JSON.stringify(input.state)}`]
      : []),
  ];
  return {
    conversationId: conversation.data,
    content: told.length ? `${text}\n\n${told.join('\n\n')}` : text,
    continues: input.messages.slice(0, -1).some((m) => m.role === 'assistant' || m.role === 'tool'),
  };
}
