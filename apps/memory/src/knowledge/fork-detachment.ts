import type pg from 'pg';
import { MAX_FORK_DEPTH } from '../message-store.js';

/**
 * Before a conversation is deleted, its forks take their own copy of the history they read from
 * it (migrations/0007): each direct fork gets, as rows of its own, every message it showed from
 * the deleted conversation and that conversation's own ancestors (same seqs, same bytes), and
 * stops naming a parent. A fork is another conversation the history was handed to; deleting the
 * one it came from must neither cut its beginning off nor be blocked by it. Runs in the deletion's
 * transaction. Returns how many forks were detached.
 */
export async function detachForks(client: pg.ClientBase, tenantId: string, conversationId: string): Promise<number> {
  await client.query(
    `WITH RECURSIVE chain AS (
       SELECT conversation_id, parent_conversation_id, parent_seq, 9223372036854775807::bigint AS hi, 0 AS depth
       FROM conversations WHERE tenant_id = $1 AND conversation_id = $2
       UNION ALL
       SELECT c.conversation_id, c.parent_conversation_id, c.parent_seq, LEAST(chain.hi, chain.parent_seq), chain.depth + 1
       FROM chain JOIN conversations c ON c.tenant_id = $1 AND c.conversation_id = chain.parent_conversation_id
       WHERE chain.depth < $3),
     forks AS (SELECT conversation_id, parent_seq FROM conversations WHERE tenant_id = $1 AND parent_conversation_id = $2)
     INSERT INTO messages (tenant_id, conversation_id, seq, role, message_json, run_id, created_at)
     SELECT $1, forks.conversation_id, m.seq, m.role, m.message_json, m.run_id, m.created_at
     FROM forks CROSS JOIN chain
     JOIN messages m ON m.tenant_id = $1 AND m.conversation_id = chain.conversation_id
       AND m.seq <= LEAST(chain.hi, forks.parent_seq)
     ON CONFLICT (tenant_id, conversation_id, seq) DO NOTHING`,
    [tenantId, conversationId, MAX_FORK_DEPTH],
  );
  const detached = await client.query(
    `UPDATE conversations SET parent_conversation_id = NULL, parent_seq = NULL, fork_depth = 0
     WHERE tenant_id = $1 AND parent_conversation_id = $2`,
    [tenantId, conversationId],
  );
  return detached.rowCount ?? 0;
}
