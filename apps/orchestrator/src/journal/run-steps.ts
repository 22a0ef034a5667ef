import type { ModelResponse, ToolOutcome } from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import { jsonbText } from '@platform/service-kit';
import type pg from 'pg';
import { LeaseLostError, type RunFence } from './run-records.js';

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
   * Journals model responses (by ordinal), together with the outcomes of side-effect-free calls
   * held back until now, in one statement. With `input` (a write holding the run's first
   * response) it also keeps the assembled loop input in the run, so a resume replays exactly what
   * this attempt saw.
   */
  recordModels(
    run: RunFence,
    models: ReadonlyArray<readonly [number, ModelResponse]>,
    options: { input?: readonly ChatMessage[]; heldTools?: ReadonlyArray<readonly [string, ToolOutcome]> } = {},
  ): Promise<void> {
    const responses = models.map(([ordinal, response]) => ({
      kind: 'model' as const,
      key: String(ordinal),
      payload: response,
    }));
    const held = (options.heldTools ?? []).map(([callId, outcome]) => ({
      kind: 'tool' as const,
      key: callId,
      payload: outcome,
    }));
    return this.record(run, [...responses, ...held], options.input);
  }

  recordTool(run: RunFence, callId: string, outcome: ToolOutcome): Promise<void> {
    return this.record(run, [{ kind: 'tool', key: callId, payload: outcome }]);
  }

  /** What a pipeline step decided, so a resumed run does not decide (and act) again. */
  recordPipeline(run: RunFence, step: string, decision: unknown): Promise<void> {
    return this.record(run, [{ kind: 'pipeline', key: step, payload: decision }]);
  }

  async loadPipeline(runId: string, step: string): Promise<unknown> {
    const { rows } = await this.pool.query<{ payload: unknown }>(
      "SELECT payload FROM run_steps WHERE run_id = $1 AND kind = 'pipeline' AND step_key = $2",
      [runId, step],
    );
    return rows[0]?.payload;
  }

  /**
   * Inserts the steps only while the run's epoch is still the writer's (and keeps `input` in the
   * run when given). A conflict on a key means another attempt wrote that step already, which only
   * happens to a writer that lost the run: both are reported as a lost lease.
   */
  private async record(
    run: RunFence,
    steps: ReadonlyArray<{ kind: StepKind; key: string; payload: unknown }>,
    input?: readonly ChatMessage[],
  ): Promise<void> {
    const { rowCount } = await this.pool.query({
      name: 'steps-record',
      text: `WITH saved AS (
               UPDATE runs SET input = $6::jsonb
               WHERE $6::jsonb IS NOT NULL AND run_id = $1 AND tenant_id = $7 AND conversation_id = $8 AND lease_epoch = $5 AND status = 'running'),
             held AS (SELECT run_id FROM runs WHERE run_id = $1 AND tenant_id = $7 AND conversation_id = $8 AND lease_epoch = $5 AND status = 'running')
             INSERT INTO run_steps (run_id, kind, step_key, payload, epoch)
             SELECT $1, s.kind, s.key, s.payload::jsonb, $5
             FROM held, unnest($2::text[], $3::text[], $4::text[]) AS s(kind, key, payload)
             ON CONFLICT DO NOTHING`,
      values: [
        run.runId,
        steps.map((s) => s.kind),
        steps.map((s) => s.key),
        steps.map((s) => jsonbText(s.payload)),
        run.epoch,
        input ? jsonbText(input) : null,
        run.tenantId,
        run.conversationId,
      ],
    });
    if (rowCount !== steps.length) throw new LeaseLostError(run.runId);
  }
}
