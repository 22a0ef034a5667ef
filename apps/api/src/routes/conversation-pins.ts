import { ConversationId } from '@platform/contracts';
import { isPlatformError } from '@platform/service-kit';
import { z } from 'zod';
import { agentCallerOf } from '../agents/agent-caller.js';
import { ConversationPin, pinBody } from '../agents/agent-json.js';
import { AgentRef, type AgentClient } from '../agents/agent-paths.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';

export interface ConversationPinRoutesOptions {
  agents: AgentClient;
}

const ConversationPath = z.object({ conversationId: ConversationId });
const INVALID_CONVERSATION = { params: { code: ApiErrorCodes.INVALID_CONVERSATION_ID } } as const;

const PinBody = z
  .object({
    agent: AgentRef,
    version: z
      .number()
      .int()
      .min(1)
      .max(2_147_483_647)
      .optional()
      .meta({ description: "The version to stay on; absent: follow the agent's active version." }),
  })
  .strict()
  .meta({ id: 'PinConversationBody' });

const PIN_EXAMPLE: z.infer<typeof ConversationPin> = {
  conversationId: 'conv-1',
  agentId: 'agt_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01',
  version: 2,
  pinnedAt: '2026-06-02T10:00:00.000Z',
  pinnedBy: 'alice',
};
const PinReply = { description: 'The pin.', body: ConversationPin, examples: { pinned: PIN_EXAMPLE } };

export const conversationPinOperations = {
  pinConversation: defineOperation({
    method: 'PUT',
    path: '/v1/conversations/{conversationId}/agent',
    operationId: 'pinConversation',
    summary: 'Pin a conversation to an agent (and a version): its messages run under it, whatever they name',
    tags: ['agents'],
    access: 'tenant',
    role: 'member',
    params: ConversationPath,
    body: PinBody,
    invalid: INVALID_CONVERSATION,
    bodyExamples: { version: { agent: 'support-bot', version: 2 }, followActive: { agent: 'support-bot' } },
    responses: { 200: PinReply },
    errors: {
      403: ['BUILT_IN_AGENT'],
      404: ['AGENT_NOT_FOUND', 'AGENT_VERSION_NOT_FOUND'],
      410: ['AGENT_DELETED'],
      503: ['UNAVAILABLE'],
    },
  }),
  getConversationPin: defineOperation({
    method: 'GET',
    path: '/v1/conversations/{conversationId}/agent',
    operationId: 'getConversationPin',
    summary: "A conversation's pin",
    tags: ['agents'],
    access: 'tenant',
    role: 'viewer',
    params: ConversationPath,
    invalid: INVALID_CONVERSATION,
    responses: { 200: PinReply },
    errors: { 404: ['PIN_NOT_FOUND'], 503: ['UNAVAILABLE'] },
  }),
  unpinConversation: defineOperation({
    method: 'DELETE',
    path: '/v1/conversations/{conversationId}/agent',
    operationId: 'unpinConversation',
    summary: 'Unpin a conversation: its messages run under the agent they name again',
    tags: ['agents'],
    access: 'tenant',
    role: 'member',
    params: ConversationPath,
    invalid: INVALID_CONVERSATION,
    responses: { 200: { ...PinReply, description: 'The pin it had.' } },
    errors: { 404: ['PIN_NOT_FOUND'], 503: ['UNAVAILABLE'] },
  }),
};

/** A conversation without a pin: the agent service's NOT_FOUND, whatever code it gave, is PIN_NOT_FOUND here. */
async function orNoPin<T>(call: Promise<T>, conversationId: string): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (isPlatformError(error) && error.kind === 'not_found')
      throw new HttpError(404, ApiErrorCodes.PIN_NOT_FOUND, `conversation '${conversationId}' has no pin`);
    throw error;
  }
}

/** Pinning a conversation to an agent version, reading and removing the pin (docs/agents.md#pinning). */
export function registerConversationPinRoutes(router: OperationRouter, { agents }: ConversationPinRoutesOptions): void {
  router.add(conversationPinOperations.pinConversation, async ({ params, body, request }) => {
    const { pin } = await agents.pinConversation({
      caller: agentCallerOf(request),
      conversationId: params.conversationId,
      agent: body.agent,
      version: body.version ?? 0,
    });
    return { status: 200, body: pinBody(pin!) };
  });

  router.add(conversationPinOperations.getConversationPin, async ({ params, request }) => {
    const { pin } = await orNoPin(
      agents.getConversationPin({ caller: agentCallerOf(request), conversationId: params.conversationId }),
      params.conversationId,
    );
    return { status: 200, body: pinBody(pin!) };
  });

  router.add(conversationPinOperations.unpinConversation, async ({ params, request }) => {
    const { pin } = await orNoPin(
      agents.unpinConversation({ caller: agentCallerOf(request), conversationId: params.conversationId }),
      params.conversationId,
    );
    return { status: 200, body: pinBody(pin!) };
  });
}
