import type { FastifyRequest } from 'fastify';
import { conversationCallerOf, type ConversationClient } from './conversation-caller.js';

/**
 * Which approvals a caller sees (docs/access.md#approvals): those of the conversations they reach
 * (docs/conversations.md#who-can-see-a-conversation). A `viewer` or `member` sees the approvals of
 * their own conversations, shared ones and those no user started; a `developer` or `admin` sees every
 * one of the tenant's. `conversationOf` names the conversation an approval is answered in (a
 * delegation's approval is its team's root conversation's).
 */
export async function visibleApprovals<T>(
  conversations: Pick<ConversationClient, 'checkConversationAccess'> | undefined,
  request: FastifyRequest,
  approvals: readonly T[],
  conversationOf: (approval: T) => Promise<string>,
): Promise<T[]> {
  const caller = conversationCallerOf(request);
  if (!conversations || caller.role === 'developer' || caller.role === 'admin') return [...approvals];
  const named = await Promise.all(
    approvals.map(async (approval) => ({ approval, conversationId: await conversationOf(approval) })),
  );
  const allowed = new Map<string, Promise<boolean>>();
  for (const { conversationId } of named)
    if (!allowed.has(conversationId))
      allowed.set(
        conversationId,
        conversations.checkConversationAccess({ caller, conversationId }).then((r) => r.allowed),
      );
  const verdicts = await Promise.all(named.map(async ({ conversationId }) => allowed.get(conversationId)!));
  return named.filter((_, i) => verdicts[i]).map(({ approval }) => approval);
}
