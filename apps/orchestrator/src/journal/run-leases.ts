import { LeaseLostError, type RunFence } from './run-types.js';
import { RunReads } from './run-reads.js';

/**
 * A running run's lease in the runs table (renew, release, hold after an outage), the
 * conversation's fence, and whether the agent pool may hold something waiting in a conversation.
 * Every lease write is fenced by the holder and its epoch (see {@link RunFence}).
 */
export class RunLeases extends RunReads {
  /** Whether a conversation token is stale (a higher one claimed since): the holder lost its lease. */
  async highestFence(tenantId: string, conversationId: string): Promise<number> {
    const { rows } = await this.pool.query<{ token: string }>(
      'SELECT token FROM conversation_fences WHERE tenant_id = $1 AND conversation_id = $2',
      [tenantId, conversationId],
    );
    return rows[0] ? Number(rows[0].token) : 0;
  }

  /** Ends this holder's lease of a running run now (it stops working on it), so another holder may claim it at once. */
  async releaseLease(run: RunFence, owner: string): Promise<void> {
    await this.pool.query(
      `UPDATE runs SET lease_until = now() - interval '1 millisecond'
       WHERE run_id = $1 AND tenant_id = $4 AND conversation_id = $5 AND lease_owner = $2 AND lease_epoch = $3 AND status = 'running'`,
      [run.runId, owner, run.epoch, run.tenantId, run.conversationId],
    );
  }

  /**
   * After an attempt that a dependency's outage stopped: the attempt is not counted (while the run
   * is younger than `refundForMs`), and the lease is held for `backoffMs` more, so no replica takes
   * the run up again before then (each would only fail the same way and use up an attempt).
   */
  async deferAfterOutage(run: RunFence, owner: string, backoffMs: number, refundForMs: number): Promise<void> {
    await this.pool.query(
      `UPDATE runs SET lease_until = now() + ($4 * interval '1 millisecond'),
         attempts = attempts - CASE WHEN created_at > now() - ($5 * interval '1 millisecond') AND attempts > 0 THEN 1 ELSE 0 END
       WHERE run_id = $1 AND tenant_id = $6 AND conversation_id = $7 AND lease_owner = $2 AND lease_epoch = $3 AND status = 'running'`,
      [run.runId, owner, run.epoch, backoffMs, refundForMs, run.tenantId, run.conversationId],
    );
  }

  /** Extends the lease; reports whether cancellation was requested meanwhile. Throws when the lease is lost. */
  async renew(run: RunFence, owner: string, leaseMs: number): Promise<{ cancelRequested: boolean }> {
    const { rows } = await this.pool.query<{ cancel_requested: boolean }>(
      `UPDATE runs SET lease_until = now() + ($4 * interval '1 millisecond')
       WHERE run_id = $1 AND tenant_id = $5 AND conversation_id = $6 AND lease_owner = $2 AND lease_epoch = $3 AND status = 'running' RETURNING cancel_requested`,
      [run.runId, owner, run.epoch, leaseMs, run.tenantId, run.conversationId],
    );
    if (!rows[0]) throw new LeaseLostError(run.runId);
    return { cancelRequested: rows[0].cancel_requested };
  }

  /** An agent-tool is about to start in the conversation: from now on, ask the pool before each message. */
  async markAgentsMayWait(tenantId: string, conversationId: string): Promise<void> {
    await this.pool.query(
      'INSERT INTO conversation_agents (tenant_id, conversation_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [tenantId, conversationId],
    );
  }

  /** The agent pool has nothing waiting in the conversation: stop asking it on every message. */
  async clearAgentsMayWait(tenantId: string, conversationId: string): Promise<void> {
    await this.pool.query('DELETE FROM conversation_agents WHERE tenant_id = $1 AND conversation_id = $2', [
      tenantId,
      conversationId,
    ]);
  }
}
