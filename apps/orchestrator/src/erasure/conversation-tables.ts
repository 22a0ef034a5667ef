import { inTransaction } from '@platform/service-kit';
import type pg from 'pg';

/**
 * THE ONE PLACE the orchestrator's own conversation-scoped rows are deleted (the last step of a
 * conversation's deletion). A new orchestrator table that holds rows of a conversation must be
 * added here, and to the e2e test that reads every table back (test/e2e/src/conversation-deletion.test.ts).
 * One transaction: all of it or nothing; a repeat deletes nothing.
 */
export async function deleteConversationRows(
  pool: pg.Pool,
  tenantId: string,
  conversationIds: readonly string[],
): Promise<Record<string, number>> {
  return inTransaction(pool, async (client) => {
    const del = async (table: string): Promise<number> =>
      (
        await client.query(`DELETE FROM ${table} WHERE tenant_id = $1 AND conversation_id = ANY($2::text[])`, [
          tenantId,
          conversationIds,
        ])
      ).rowCount ?? 0;
    // What names the runs by id: their Idempotency-Keys (migration 0014), their webhook targets and
    // deliveries (0019: the delivered body holds the run's answer).
    for (const table of ['idempotency_keys', 'run_webhook_deliveries', 'run_webhook_targets'])
      await client.query(
        `DELETE FROM ${table} WHERE tenant_id = $1 AND run_id IN
           (SELECT run_id FROM runs WHERE tenant_id = $1 AND conversation_id = ANY($2::text[]))`,
        [tenantId, conversationIds],
      );
    // run_steps (the journal: model responses, tool calls and their results) go with their runs (ON DELETE CASCADE).
    const runs = await del('runs');
    await del('conversation_fences');
    await del('conversation_agents');
    await del('conversation_agent_pins');
    // The conversation itself (migration 0015): its title, labels, metadata, owner and activity.
    await del('conversations');
    return { runs };
  });
}
