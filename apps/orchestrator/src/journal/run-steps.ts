import type { ModelResponse, ToolOutcome } from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import type pg from 'pg';
import { LeaseLostError } from './run-records.js';

/** What earlier attempts of a run journaled: model responses in order, tool outcomes by call id. */
export interface JournaledSteps {
  models: ModelResponse[];
  tools: Map<string, ToolOutcome>;
}

type StepKind = 'model' | 'tool' | 'pipeline';

/** Writes and reads the steps of runs. Every write is fenced by the writer's lease epoch. */
export class RunSteps {
  constructor(private readonly pool: pg.Pool) {}

  async load(runId: string): Promise<JournaledSteps> {
    const { rows } = await this.pool.query<{ kind: 'model' | 'tool'; step_key: string; payload: unknown }>(
      "SELECT kind, step_key, payload FROM run_steps WHERE run_id = $1 AND kind IN ('model', 'tool')",
      [runId],
    );
    const models = rows
      .filter((r) => r.kind === 'model')
      .sort((a, b) => Number(a.step_key) - Number(b.step_key))
      .map((r) => r.payload as ModelResponse);
    const tools = new Map(rows.filter((r) => r.kind === 'tool').map((r) => [r.step_key, r.payload as ToolOutcome]));
    return { models, tools };
  }

  /**
   * Journals a model response. With `input` (the run's first response) the same statement keeps
   * the assembled loop input in the run, so a resume replays exactly what this attempt saw.
   */
  async recordModel(runId: string, epoch: number, ordinal: number, response: ModelResponse, input?: readonly ChatMessage[]): Promise<void> {
    if (!input) return this.record(runId, epoch, 'model', String(ordinal), response);
    const { rowCount } = await this.pool.query({
      name: 'steps-record-first-model',
      text: `WITH held AS (
         UPDATE runs SET input = $6 WHERE run_id = $1 AND lease_epoch = $5 AND status = 'running' RETURNING run_id)
       INSERT INTO run_steps (run_id, kind, step_key, payload, epoch)
       SELECT $1, $2, $3, $4, $5 FROM held
       ON CONFLICT DO NOTHING`,
      values: [runId, 'model', String(ordinal), JSON.stringify(response), epoch, JSON.stringify(input)],
    });
    if (rowCount !== 1) throw new LeaseLostError(runId);
  }

  recordTool(runId: string, epoch: number, callId: string, outcome: ToolOutcome): Promise<void> {
    return this.record(runId, epoch, 'tool', callId, outcome);
  }

  /**
   * Inserts only while the run's epoch is still the writer's. A conflict on the key means another
   * attempt wrote the step already, which only happens to a writer that lost the run: both are
   * reported as a lost lease.
   */
  /** What a pipeline step decided, so a resumed run does not decide (and act) again. */
  recordPipeline(runId: string, epoch: number, step: string, decision: unknown): Promise<void> {
    return this.record(runId, epoch, 'pipeline', step, decision);
  }

  async loadPipeline(runId: string, step: string): Promise<unknown> {
    const { rows } = await this.pool.query<{ payload: unknown }>("SELECT payload FROM run_steps WHERE run_id = $1 AND kind = 'pipeline' AND step_key = $2", [runId, step]);
    return rows[0]?.payload;
  }

  private async record(runId: string, epoch: number, kind: StepKind, key: string, payload: unknown): Promise<void> {
    const { rowCount } = await this.pool.query({
      name: 'steps-record',
      text: `INSERT INTO run_steps (run_id, kind, step_key, payload, epoch)
             SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = $1 AND lease_epoch = $5 AND status = 'running')
             ON CONFLICT DO NOTHING`,
      values: [runId, kind, key, JSON.stringify(payload), epoch],
    });
    if (rowCount !== 1) throw new LeaseLostError(runId);
  }
}
