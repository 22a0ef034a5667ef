import type pg from 'pg';
import { toRecord, type RunRow } from './run-rows.js';
import { LIVE_ORDER } from './run-statements.js';
import { LeaseLostError, type RunFence, type RunRecord } from './run-types.js';

/**
 * A newer message's requests that the run in flight stop (migrations/0016, docs/conversations.md):
 * `interrupt` (at its next step boundary) and `rollback` (cancelled, nothing of it in history).
 * Whether a rollback came in time is settled by one row: the turn seals its history (just before
 * appending it to memory) only when no rollback was asked, and a rollback is recorded only while
 * the history is not sealed, so a rolled-back run has never written anything to history.
 */
export class RunStops {
  constructor(private readonly pool: pg.Pool) {}

  /** The conversation's run in flight: its running run, else the oldest queued one. A waiting run is not in flight. */
  async inFlight(tenantId: string, conversationId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.pool.query<RunRow>({
      name: 'runs-in-flight',
      text: `SELECT * FROM runs WHERE tenant_id = $1 AND conversation_id = $2 AND status IN ('queued', 'running') ${LIVE_ORDER} LIMIT 1`,
      values: [tenantId, conversationId],
    });
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /**
   * Asks a live run to stop at its next step boundary; false when it is not live any more, its
   * history is sealed, or another message asked it to stop first (the first request stands).
   */
  async requestInterrupt(tenantId: string, runId: string, byRunId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE runs SET stop_requested = 'interrupt', stopped_by = $3
       WHERE tenant_id = $1 AND run_id = $2 AND status IN ('queued', 'running') AND stop_requested IS NULL AND NOT history_sealed`,
      [tenantId, runId, byRunId],
    );
    return rowCount === 1;
  }

  /**
   * Marks a live run rolled back (and asks it to cancel); false when it is not live any more or
   * its history is sealed: then it is finished in all but name and stays in history. A rollback
   * overrides an interrupt asked before it.
   */
  async requestRollback(tenantId: string, runId: string, byRunId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE runs SET stop_requested = 'rollback', stopped_by = $3, cancel_requested = true
       WHERE tenant_id = $1 AND run_id = $2 AND status IN ('queued', 'running') AND stop_requested IS DISTINCT FROM 'rollback' AND NOT history_sealed`,
      [tenantId, runId, byRunId],
    );
    return rowCount === 1;
  }

  /**
   * Seals the run's history before the turn appends it: `sealed` unless a rollback was asked
   * (`rolled_back`: append nothing). Fenced by the holder's epoch: throws LeaseLostError when this
   * attempt no longer holds the run. A resumed run seals again, with the same answer.
   */
  async sealHistory(run: RunFence): Promise<'sealed' | 'rolled_back'> {
    const { rowCount } = await this.pool.query({
      name: 'runs-seal-history',
      text: `UPDATE runs SET history_sealed = true
         WHERE run_id = $1 AND tenant_id = $3 AND conversation_id = $4 AND lease_epoch = $2 AND status = 'running'
           AND stop_requested IS DISTINCT FROM 'rollback'`,
      values: [run.runId, run.epoch, run.tenantId, run.conversationId],
    });
    if (rowCount === 1) return 'sealed';
    // Read again (a statement of its own, so it sees a rollback that committed while the update waited).
    const { rows } = await this.pool.query<{ stop_requested: string | null; status: string; lease_epoch: number }>(
      'SELECT stop_requested, status, lease_epoch FROM runs WHERE run_id = $1 AND tenant_id = $2',
      [run.runId, run.tenantId],
    );
    const row = rows[0];
    if (row?.stop_requested === 'rollback' && row.status === 'running' && row.lease_epoch === run.epoch)
      return 'rolled_back';
    throw new LeaseLostError(run.runId);
  }
}
