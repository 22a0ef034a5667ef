import { inTransaction, type Logger } from '@platform/service-kit';
import type pg from 'pg';
import { CANCELLED } from './entry-states.js';
import { logEntry } from './entry-log.js';
import { entryStore, isLive, type EntryRow } from './entry-store.js';

/**
 * A deleted conversation's entries (docs/conversations.md): the live ones (waiting agent-tools,
 * approval gates, user decisions) end cancelled, as CancelAgent ends them, then every entry of the
 * conversation is deleted, in one transaction that holds their rows (an entry mid-step finishes
 * its step first). A repeat finds nothing.
 */
export async function deleteConversationEntries(
  db: pg.Pool,
  logger: Logger,
  tenantId: string,
  conversationId: string,
): Promise<{ cancelled: number; deleted: number }> {
  return inTransaction(db, async (client) => {
    const { rows } = await client.query<EntryRow>(
      'SELECT * FROM entries WHERE tenant_id = $1 AND conversation_id = $2 ORDER BY entry_id FOR UPDATE',
      [tenantId, conversationId],
    );
    let cancelled = 0;
    for (const row of rows.filter((r) => isLive(r.status))) {
      logEntry(
        logger,
        await entryStore.update(client, row.entry_id, CANCELLED),
        'agent cancelled: conversation deleted',
      );
      cancelled += 1;
    }
    const deleted = await client.query('DELETE FROM entries WHERE tenant_id = $1 AND conversation_id = $2', [
      tenantId,
      conversationId,
    ]);
    return { cancelled, deleted: deleted.rowCount ?? 0 };
  });
}
