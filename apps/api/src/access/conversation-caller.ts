import type { conversationsV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyRequest } from 'fastify';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';
import { principalOf } from '../principal.js';

export type ConversationClient = PromiseClient<conversationsV1.ConversationServiceClient>;

/** Who asks the conversation service: the token's tenant, its user and its tenant role. */
export function conversationCallerOf(request: FastifyRequest): conversationsV1.ConversationCaller {
  const principal = principalOf(request);
  // An operator's read of a tenant (GET only) sees every conversation of it, as a developer's does.
  const role = principal.operatorRead ? 'developer' : principal.role;
  return { tenantId: principal.tenantId, subject: principal.subject ?? '', role };
}

/**
 * Refuses to read the history of a conversation the caller may not reach (another user's that is
 * not shared) as one that does not exist (docs/conversations.md#who-can-see-a-conversation).
 * Developers and admins reach every conversation of the tenant: nothing to ask.
 */
export async function requireHistoryAccess(
  conversations: Pick<ConversationClient, 'checkConversationAccess'>,
  request: FastifyRequest,
  conversationId: string,
): Promise<void> {
  const caller = conversationCallerOf(request);
  if (caller.role === 'developer' || caller.role === 'admin') return;
  const { allowed } = await conversations.checkConversationAccess({ caller, conversationId });
  if (!allowed) throw new HttpError(404, ApiErrorCodes.CONVERSATION_NOT_FOUND, `no conversation '${conversationId}'`);
}

/**
 * Refuses a member the deletion of a conversation that is not theirs (docs/conversations.md): one
 * they cannot reach is 404 as if it did not exist; another user's shared one is 403. A conversation
 * no user started (a trigger task's) is the tenant's, and any member may delete it. Developers and
 * admins delete any conversation of the tenant.
 */
export async function requireOwnConversation(
  conversations: Pick<ConversationClient, 'getConversation'>,
  request: FastifyRequest,
  conversationId: string,
): Promise<void> {
  const caller = conversationCallerOf(request);
  if (caller.role === 'developer' || caller.role === 'admin') return;
  const { conversation } = await conversations.getConversation({ caller, conversationId });
  if (conversation?.owner && conversation.owner !== caller.subject)
    throw new HttpError(
      403,
      ApiErrorCodes.FORBIDDEN_ROLE,
      "only its owner (or a developer or admin) may delete another user's shared conversation",
      { requiredRole: 'developer', role: caller.role, reason: 'not_the_owner' },
    );
}
