import { randomUUID } from 'node:crypto';
import { ConversationId } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';
import { ApiErrorCodes } from '../error-codes.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { requireHistoryAccess, type ConversationClient } from '../access/conversation-caller.js';

export interface ConversationForkRoutesOptions {
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  /** Who may read the conversation forked (a member: their own and shared ones); absent: not checked (tests of the routes alone). */
  conversations?: Pick<ConversationClient, 'checkConversationAccess'> | undefined;
}

const ConversationPath = z.object({ conversationId: ConversationId });

const ForkBody = z
  .object({
    atSeq: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .meta({ description: "The last message the fork keeps (its `seq`); absent: the conversation's latest." }),
  })
  .strict()
  .meta({ id: 'ForkConversationBody' });

const Fork = z
  .object({
    conversationId: z.string().meta({ description: 'The new conversation.' }),
    parentConversationId: z.string(),
    atSeq: z
      .number()
      .int()
      .meta({ description: "The parent's last message the fork holds; the fork's own start after it." }),
    depth: z.number().int().meta({ description: 'Forks between this one and its root conversation (at most 10).' }),
  })
  .meta({ id: 'ConversationFork' });

/** A fork's id: chosen here, so that two forks never meet. */
function newForkId(): string {
  return `conv_${randomUUID()}`;
}

export const conversationForkOperations = {
  forkConversation: defineOperation({
    method: 'POST',
    path: '/v1/conversations/{conversationId}/fork',
    operationId: 'forkConversation',
    summary: "Fork a conversation: a new conversation whose history is this one's up to a message",
    description:
      "The fork's history is read from its parent (it is not copied); messages sent to the fork are its own, and the parent is unchanged. A cutoff between a tool call and its results is refused (409 FORK_INSIDE_TOOL_CALL). See docs/conversations.md#forks-and-edits.",
    tags: ['conversations'],
    access: 'tenant',
    role: 'member',
    params: ConversationPath,
    body: ForkBody,
    invalid: { params: { code: ApiErrorCodes.INVALID_CONVERSATION_ID } },
    bodyExamples: { atMessage: { atSeq: 4 }, latest: {} },
    responses: {
      201: {
        description: 'The fork.',
        body: Fork,
        examples: {
          forked: {
            conversationId: 'conv_6f1c2a4e-1b2c-4d3e-8f90-123456789abc',
            parentConversationId: 'conv-1',
            atSeq: 4,
            depth: 1,
          },
        },
      },
    },
    errors: {
      404: ['CONVERSATION_NOT_FOUND', 'MESSAGE_NOT_FOUND'],
      409: ['FORK_INSIDE_TOOL_CALL', 'FORK_TOO_DEEP'],
      503: ['UNAVAILABLE'],
    },
  }),
};

/** Forking a conversation (docs/conversations.md#forks-and-edits). */
export function registerConversationForkRoutes(router: OperationRouter, options: ConversationForkRoutesOptions): void {
  router.add(conversationForkOperations.forkConversation, async ({ params, body, request }) => {
    // A fork reads the history it starts with: only someone who may read that history may fork it.
    if (options.conversations) await requireHistoryAccess(options.conversations, request, params.conversationId);
    const { tenantId } = principalOf(request);
    const fork = await options.memory.forkConversation({
      tenantId,
      conversationId: params.conversationId,
      atSeq: body.atSeq ?? 0,
      newConversationId: newForkId(),
    });
    return { status: 201, body: fork };
  });
}
