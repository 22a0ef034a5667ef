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
