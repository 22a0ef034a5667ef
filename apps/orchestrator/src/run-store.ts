import type { LoopResult } from '@platform/agent-loop';
import type pg from 'pg';

export interface StoredRun {
  runId: string;
  tenantId: string;
  conversationId: string;
  status: string;
  stopReason: string;
  result: Omit<LoopResult, 'transcript' | 'messages'>;
  transcript: LoopResult['transcript'];
  createdAt: Date;
  finishedAt: Date;
}

/** Finished runs in the orchestrator's schema; every read is scoped by tenant. */
export class RunStore {
  constructor(private readonly pool: pg.Pool) {}

  async save(run: { tenantId: string; conversationId: string; status: string; createdAt: Date; result: LoopResult }): Promise<void> {
    const { transcript, messages: _messages, ...summary } = run.result;
    await this.pool.query(
      `INSERT INTO runs (run_id, tenant_id, conversation_id, status, stop_reason, result, transcript, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (run_id) DO NOTHING`,
      [run.result.runId, run.tenantId, run.conversationId, run.status, run.result.stopReason, JSON.stringify(summary), JSON.stringify(transcript), run.createdAt],
    );
  }

  async get(tenantId: string, runId: string): Promise<StoredRun | undefined> {
    const { rows } = await this.pool.query<{
      run_id: string;
      tenant_id: string;
      conversation_id: string;
      status: string;
      stop_reason: string;
      result: StoredRun['result'];
      transcript: StoredRun['transcript'];
      created_at: Date;
      finished_at: Date;
    }>('SELECT * FROM runs WHERE tenant_id = $1 AND run_id = $2', [tenantId, runId]);
    const row = rows[0];
    if (!row) return undefined;
    return {
      runId: row.run_id,
      tenantId: row.tenant_id,
      conversationId: row.conversation_id,
      status: row.status,
      stopReason: row.stop_reason,
      result: row.result,
      transcript: row.transcript,
      createdAt: row.created_at,
      finishedAt: row.finished_at,
    };
  }
}
