import type pg from 'pg';
import type { RunFence } from './run-types.js';

/** A steering message a run took (or takes now): its own run, its text, and the loop iteration before whose model call it joined. */
export interface TakenSteer {
  runId: string;
  content: string;
  iteration: number;
}

/** What a steering message's run reads once a run took it (GET /v1/runs/{id}: `result`). */
function steeredResult(hostRunId: string): string {
  return JSON.stringify({
    response: `This message joined run ${hostRunId}, which answers it.`,
    stopReason: 'steered',
    turns: 0,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    durationMs: 0,
    pendingAgents: [],
    toolCalls: [],
  });
}

/**
 * Steering (migrations/0023, docs/conversations.md): a message's run that asks to join the run in
 * flight. It is recorded first as a queued run like any message; `request` then names the run it
 * steers; that run takes it before its next model call (`take`, fenced by the run's lease, in one
 * statement that also ends the message's run `steered`), so it is either taken at one place or still
 * queued, and a queued one runs as its own turn once the run in flight ends.
 */
export class RunSteers {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Asks the run `hostRunId` to take the message's run `messageRunId`; false when the message's run
   * is not queued any more (the run in flight ended and the message runs as its own turn already).
   */
  async request(tenantId: string, messageRunId: string, hostRunId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE runs SET steers = $3
       WHERE tenant_id = $1 AND run_id = $2 AND status = 'queued' AND steers IS NULL AND run_id <> $3`,
      [tenantId, messageRunId, hostRunId],
    );
    return rowCount === 1;
  }

  /** The steers the run took in earlier attempts, in order (a resumed run puts them back at their places). */
  async taken(tenantId: string, hostRunId: string): Promise<TakenSteer[]> {
    const { rows } = await this.pool.query<{ run_id: string; content: string; steered_at: number }>(
      `SELECT run_id, content, steered_at FROM runs
       WHERE tenant_id = $1 AND steers = $2 AND steered_at IS NOT NULL ORDER BY steered_at, created_at, run_id`,
      [tenantId, hostRunId],
    );
    return rows.map((r) => ({ runId: r.run_id, content: r.content, iteration: r.steered_at }));
  }

  /**
   * Takes the run's waiting steers before the model call of `iteration`, oldest first: each
   * message's run ends `completed` / `steered` with its place kept. Only while this attempt holds
   * the run (its lease epoch), the run is running and its history is not sealed; a run asked to
   * stop or cancel takes nothing (the messages then run as their own turns).
   */
  async take(run: RunFence, iteration: number): Promise<TakenSteer[]> {
    const { rows } = await this.pool.query<{ run_id: string; content: string; created_at: Date }>({
      name: 'runs-take-steers',
      text: `UPDATE runs s SET status = 'completed', stop_reason = 'steered', steered_at = $5,
             started_at = COALESCE(s.started_at, now()), finished_at = now(), result = $6::jsonb || jsonb_build_object('runId', s.run_id)
           FROM runs h
           WHERE s.tenant_id = $1 AND s.steers = $2 AND s.status = 'queued' AND s.conversation_id = $4
             AND h.tenant_id = $1 AND h.run_id = $2 AND h.conversation_id = $4 AND h.lease_epoch = $3
             AND h.status = 'running' AND NOT h.history_sealed AND h.stop_requested IS NULL AND NOT h.cancel_requested
           RETURNING s.run_id, s.content, s.created_at`,
      values: [run.tenantId, run.runId, run.epoch, run.conversationId, iteration, steeredResult(run.runId)],
    });
    return rows
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.run_id.localeCompare(b.run_id))
      .map((r) => ({ runId: r.run_id, content: r.content, iteration }));
  }
}
