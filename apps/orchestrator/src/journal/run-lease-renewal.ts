import type pg from 'pg';
import type { RunFence } from './run-types.js';

/** A renewed run, and whether it was asked to stop meanwhile (cancelled, or interrupted by a newer message). */
export interface RenewedRun {
  cancelRequested: boolean;
  interruptRequested: boolean;
}

/**
 * Renews the run leases one replica holds, all of them in one statement, so the cost of keeping
 * runs in flight is one commit per replica per interval, not one per run. Each run stays fenced as
 * it is alone (`lease_owner`, `lease_epoch`, `status = 'running'`): a run another holder took over,
 * or that finished, is simply not in the answer.
 */
export class RunLeaseRenewal {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Extends the lease of every run in `runs` that `owner` still holds by `leaseMs` from now.
   * Resolves with the renewed runs (by id) and whether each was asked to stop meanwhile; a run
   * missing from it lost its lease. Rows are locked in run id order, so two renewals (or a renewal
   * and another statement that locks several runs in that order) never deadlock.
   */
  async renewAll(runs: readonly RunFence[], owner: string, leaseMs: number): Promise<Map<string, RenewedRun>> {
    const renewed = new Map<string, RenewedRun>();
    if (runs.length === 0) return renewed;
    const sorted = [...runs].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    const { rows } = await this.pool.query<{
      run_id: string;
      cancel_requested: boolean;
      stop_requested: string | null;
    }>({
      name: 'runs-renew-leases',
      text: `WITH held AS (
         SELECT r.run_id FROM runs r
         JOIN unnest($2::text[], $3::text[], $4::text[], $5::integer[]) AS h(run_id, tenant_id, conversation_id, epoch)
           ON r.run_id = h.run_id AND r.tenant_id = h.tenant_id AND r.conversation_id = h.conversation_id AND r.lease_epoch = h.epoch
         WHERE r.lease_owner = $1 AND r.status = 'running'
         ORDER BY r.run_id
         FOR UPDATE OF r)
       UPDATE runs r SET lease_until = now() + ($6 * interval '1 millisecond')
       FROM held WHERE r.run_id = held.run_id AND r.lease_owner = $1 AND r.status = 'running'
       RETURNING r.run_id, r.cancel_requested, r.stop_requested`,
      values: [
        owner,
        sorted.map((r) => r.runId),
        sorted.map((r) => r.tenantId),
        sorted.map((r) => r.conversationId),
        sorted.map((r) => r.epoch),
        leaseMs,
      ],
    });
    for (const row of rows)
      renewed.set(row.run_id, {
        cancelRequested: row.cancel_requested,
        interruptRequested: row.stop_requested === 'interrupt',
      });
    return renewed;
  }
}
